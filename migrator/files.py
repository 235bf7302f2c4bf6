"""Finding, reading and atomically writing source files."""
from __future__ import annotations

import errno
import fnmatch
import io
import operator
import os
import itertools
import keyword
import re
from pathlib import Path, PurePosixPath

DEFAULT_EXCLUDES = {".git", ".hg", ".svn", ".venv", "venv", "__pycache__", "node_modules", "build", "dist", ".tox", ".eggs"}


def discover(paths: list[str], extend_exclude: tuple[str, ...] = (), exclude: tuple[str, ...] | None = None,
             root: Path | None = None, force_exclude: bool = False) -> list[Path]:
    """Expand files and directories (recursing into *.py and *.ipynb) into a sorted, de-duplicated list.

    `exclude` (default: DEFAULT_EXCLUDES) and `extend_exclude` are names or globs, matched against a file's or
    directory's name and against its path relative to `root` (the configuration's directory). Files named
    explicitly are always taken unless `force_exclude` (pre-commit passes every staged file by name)."""
    return [Path(p) for p in discover_files(paths, extend_exclude, exclude, root, force_exclude)]


def _parts(path: str) -> tuple[str, ...]:
    """PurePosixPath(path).parts of a normalized path (str of a Path), without building the Path."""
    if path.startswith("//"):
        return PurePosixPath(path).parts
    if path.startswith("/"):
        return ("/", *path[1:].split("/")) if len(path) > 1 else ("/",)
    return tuple(path.split("/"))


_NAME = operator.attrgetter("name")
_serial = itertools.count()


def discover_files(paths: list[str], extend_exclude: tuple[str, ...] = (), exclude: tuple[str, ...] | None = None,
                   root: Path | None = None, force_exclude: bool = False) -> list[str]:
    """discover(), as the strings of its Paths (a run over thousands of files does not build a Path per file)."""
    patterns = (*(DEFAULT_EXCLUDES if exclude is None else exclude), *extend_exclude)

    def excluded(path: Path, base: Path | None = None) -> bool:
        return any(glob_match(path, pattern, root, base) for pattern in patterns)

    # Under a directory walked, a pattern without `/` matches an entry's own name (glob_match with base = the
    # directory listed: the relative path is the name alone): a set of the plain names (the defaults: no regex to
    # build on every run) and one regex for the globs, no Path arithmetic.
    by_name = [p.rstrip("/") for p in patterns if "/" not in p.rstrip("/")]
    by_path = [p for p in patterns if "/" in p.rstrip("/")]
    plain_names = {p for p in by_name if not any(c in p for c in "*?[")}
    globs = [p for p in by_name if p not in plain_names]
    name_match = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in globs)).match if globs else None

    def excluded_entry(walk_root: str, name: str) -> bool:
        if name in plain_names or (name_match is not None and name_match(name)):
            return True
        if not by_path:
            return False
        base = Path(walk_root)
        return any(glob_match(base / name, p, root, base) for p in by_path)

    only_plain = name_match is None and not by_path  # (the defaults: a set lookup per entry, no call)
    found: list[str] = []

    def walk(directory: str, prefix: str) -> None:
        """What os.walk(top) (no symlinked directory entered, unreadable ones passed over) finds, by one scandir per
        directory: a directory is `directory` as os.walk spells it, `prefix` how its files are named."""
        try:
            with os.scandir(directory) as it:
                entries = list(it)
        except OSError:
            return
        entries.sort(key=_NAME)  # by name, each directory's files before the next name's: Path order, unsorted
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if name.startswith(".") or (name in plain_names if only_plain else excluded_entry(directory, name)):
                    continue
                try:
                    link = entry.is_symlink()
                except OSError:
                    link = False  # os.path.islink's answer
                if link:
                    continue
                walk(entry.path, prefix + name + "/")
            elif name.endswith((".py", ".ipynb")) and not (name in plain_names if only_plain else excluded_entry(directory, name)):
                found.append(prefix + name)

    one_directory = False
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            top = str(p)  # normalized: the directories below it are too ("." aside: Path drops its "./")
            walk(top, "" if top == "." else top if top.endswith("/") else top + "/")
            one_directory = len(paths) == 1
        elif not (force_exclude and excluded(p)):
            found.append(str(p))
    if one_directory:  # one walk in name order: already in Path order, no duplicates
        return found
    return sorted(set(found), key=_parts)  # the order of Path comparisons (their parts)


def glob_match(path: Path, pattern: str, root: Path | None, base: Path | None = None) -> bool:
    """gitignore-like: a pattern without `/` matches the name of the path or of a directory between `base` (the
    directory searched; default: `root`) and it (`build`, `gen_*.py`); one with `/` matches the path relative to
    `root` (the configuration's directory) or one of its parent directories."""
    pattern = pattern.rstrip("/")
    rel = path
    if root is not None:
        try:
            rel = path.resolve().relative_to(root.resolve())
        except (ValueError, OSError):
            rel = path
    if "/" not in pattern:
        parts = rel.parts
        if base is not None:
            try:
                parts = path.relative_to(base).parts
            except ValueError:
                parts = (path.name,)
        return any(fnmatch.fnmatchcase(part, pattern) for part in parts if part not in ("/", ".", ".."))
    pattern = pattern.removeprefix("./")
    candidates = {rel.as_posix(), path.as_posix()}
    return any(fnmatch.fnmatchcase(c, pattern) or any(fnmatch.fnmatchcase(parent.as_posix(), pattern)
                                                      for parent in PurePosixPath(c).parents)
               for c in candidates)


def decode(data: bytes) -> tuple[str, str]:
    """Decode Python source honouring a PEP 263 coding cookie or a BOM; returns (text, encoding)."""
    import tokenize

    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


class Unencodable(ValueError):
    """The migrated text holds a character the file's own encoding (a PEP 263 cookie) cannot encode."""


# the marks the rules' templates put in generated comments, spelled in ASCII for a file whose encoding lacks them
ASCII_FOR = {"\u2192": "->", "\u2190": "<-", "\u2014": "--", "\u2013": "-", "\u0394": "delta", "\u2026": "...",
             "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2248": "~", "\u00d7": "x",
             "\u2264": "<=", "\u2265": ">="}


def encode(text: str, encoding: str) -> bytes:
    """`text` in the file's encoding. Only when that fails (never for UTF-8: its output is unchanged), marks in
    comments are spelled in ASCII (ASCII_FOR); anything else unencodable raises Unencodable, saying where."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError:
        pass
    text = _ascii_comments(text, encoding)
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        char = text[exc.start]
        line = text.count("\n", 0, exc.start) + 1
        raise Unencodable(f"the migrated code needs {char!r} (U+{ord(char):04X}) at line {line}, which the file's "
                          f"encoding ({encoding}) cannot encode; the file was left unchanged: convert it to UTF-8 "
                          "and run again") from None


def _ascii_comments(text: str, encoding: str) -> str:
    import tokenize

    def fits(c: str) -> bool:
        try:
            c.encode(encoding)
        except UnicodeEncodeError:
            return False
        return True

    lines = text.splitlines(True)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return text
    for tok in reversed(tokens):  # a comment is on one line: replacing right to left keeps the columns valid
        (row, start), (_, end) = tok.start, tok.end
        line = lines[row - 1]
        lines[row - 1] = line[:start] + "".join(c if fits(c) else ASCII_FOR.get(c, c) for c in line[start:end]) \
            + line[end:]
    return "".join(lines)


class WriteError(Exception):
    """A unit could not be written; every file of it was left as it was (the message says why)."""


class Changed(WriteError):
    """A file of the unit changed (or went) after it was read: writing would lose that edit."""


class Write:
    """One file of a unit to commit: `data` goes to `dest` (a symlink's target, already resolved).

    `expect`: the bytes the file held when it was read (in place), checked just before it is replaced; None under
    --out. `mode`: the mode to give a new file (--out: the source's); an existing file keeps its own."""

    __slots__ = ("path", "dest", "data", "expect", "mode")

    def __init__(self, path: str, dest: str, data: bytes, expect: bytes | None = None, mode: int | None = None):
        self.path, self.dest, self.data, self.expect, self.mode = path, dest, data, expect, mode


def _current(dest: str) -> bytes | None:
    try:
        with open(dest, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def _stage(dest: str, data: bytes, like: os.stat_result | None, mode: int | None) -> str:
    """`data` in a new temp file beside `dest` (same filesystem: the rename is atomic), with the owner of the file
    it replaces and `mode` (default: that file's), fsynced: after the rename the new content is on disk."""
    directory, name = os.path.split(dest)
    tmp = os.path.join(directory or ".", f".{name}.{os.getpid()}.{next(_serial)}.tfmigrate")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if like is not None:
            if (like.st_uid, like.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fd, like.st_uid, like.st_gid)
                except PermissionError:
                    raise WriteError(f"cannot keep its owner (uid {like.st_uid}, gid {like.st_gid}): only they or "
                                     "root can write it as theirs") from None
        if mode is None:
            mode = like.st_mode & 0o7777 if like is not None else 0o666 & ~_umask()
        os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _remove(tmp)
        raise
    os.close(fd)
    return tmp


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def commit(writes: list[Write]) -> None:
    """Write a unit's files all or none: stage each (temp file beside it, fsynced), check that no file changed since
    it was read, then rename them in; a file that existed is hard-linked to a backup first, so a failed rename
    puts every replaced file back. Raises WriteError (Changed) or OSError with every file as it was."""
    staged: list[tuple[Write, str]] = []
    backups: list[tuple[Write, str | None]] = []  # files renamed in, with the backup of what they replaced
    try:
        stats = {}
        for w in writes:
            os.makedirs(os.path.dirname(w.dest) or ".", exist_ok=True)
            try:
                stats[w.dest] = os.stat(w.dest)
            except FileNotFoundError:
                stats[w.dest] = None
            if w.expect is not None and stats[w.dest] is not None and stats[w.dest].st_nlink > 1:
                raise WriteError(f"{w.path} has {stats[w.dest].st_nlink} hard links: replacing it would split them "
                                 "(the other names would keep the old code); migrate a copy, or with --out")
            staged.append((w, _stage(w.dest, w.data, stats[w.dest], w.mode)))
        for w, _ in staged:  # just before replacing: an edit made while the unit was migrated is never lost
            if w.expect is not None and _current(w.dest) != w.expect:
                raise Changed(f"{w.path} changed after tfmigrate read it" if os.path.exists(w.dest)
                              else f"{w.path} was deleted after tfmigrate read it")
        # (the caller holds SIGINT/SIGTERM while it commits: a unit is never cut in half)
        for w, tmp in staged:
            backup = None
            if stats[w.dest] is not None:
                backup = tmp + ".orig"
                try:
                    os.link(w.dest, backup)
                except OSError as exc:  # a filesystem without hard links: a copy of the original instead
                    if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                        raise
                    backup = _stage(w.dest, _current(w.dest) or b"", stats[w.dest], None)
            backups.append((w, backup))
            os.replace(tmp, w.dest)
        for directory in {os.path.dirname(w.dest) for w in writes}:
            _fsync_dir(directory)
    except BaseException:
        for w, backup in reversed(backups):  # put back what was replaced (renames do not fail for lack of space)
            try:
                if backup is None:
                    _remove(w.dest)
                elif os.path.exists(backup):
                    os.replace(backup, w.dest)
                    _remove(backup)  # (rename onto a hard link of the same file leaves both names)
            except OSError:
                pass
        for _, tmp in staged:
            _remove(tmp)
        raise
    for _, backup in backups:
        if backup is not None:
            _remove(backup)


def module_name_for(path: Path) -> tuple[str, bool]:
    """Dotted module name of a file from the packages (directories with __init__.py) around it."""
    path = path.resolve()
    parts = [] if path.stem == "__init__" else [path.stem]
    is_package = path.stem == "__init__"
    parent = path.parent
    while (parent / "__init__.py").exists():
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts), is_package


def namespace_names(path: str, name: str) -> list[str]:
    """A module is also importable through the directories above its top package (or above itself, outside any
    package) as namespace packages (PEP 420: `from official.wide_deep import run_loop` of official/wide_deep/
    run_loop.py, `from official.resnet import run_loop` of official/resnet/run_loop.py when only resnet/ has an
    __init__.py; the layout root on sys.path): those dotted names, longer than `name`."""
    if not name:
        return []
    parts = [p for p in Path(path).with_suffix("").parts if p not in ("", "/", ".", "..")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    own = name.split(".")
    if len(parts) <= len(own) or parts[-len(own):] != own:
        return []
    names = []
    for i in range(len(parts) - len(own)):
        top, rest = parts[i], parts[i + 1:]
        if all(p.isidentifier() for p in rest):
            if top.isidentifier():
                names.append(".".join(parts[i:]))
            # a checkout renamed `owner__repo` is imported by the repository's name (`from adanet.research...`)
            repo = top.rpartition("__")[2].partition("-")[0] if "__" in top else ""
            if repo.isidentifier() and not keyword.iskeyword(repo):
                names.append(".".join([repo, *rest]))
    return names


def checkout_names(name: str) -> list[str]:
    """A package whose top directory is no identifier cannot be imported by it: the checkout was renamed
    (`owner__repo`, `repo-master`), and its files import it by the repository's name (`from albert import
    modeling` in google-research__albert/): that name, `albert.modeling`; [] otherwise."""
    top, dot, rest = name.partition(".")
    if not dot or top.isidentifier():
        return []
    repo = top.rpartition("__")[2].partition("-")[0]
    return [f"{repo}.{rest}"] if repo.isidentifier() and not keyword.iskeyword(repo) else []


def module_file_beside(importer: str, module: str) -> str | None:
    """The file `module` names beside `importer` (its directory, or above its packages: on sys.path when it runs),
    if one exists, for a message about a module not read with the importer; None otherwise."""
    name, _ = module_name_for(Path(importer))
    here = Path(importer).resolve().parent
    for root in [here, *list(here.parents)[:name.count(".")]]:
        hit = _module_file(root / module.replace(".", "/"))
        _, _, rest = module.partition(".")
        if hit is None and rest and checkout_names(f"{root.name}.{rest}") == [module]:  # `albert.x` in google-research__albert/
            hit = _module_file(root / rest.replace(".", "/"))
        if hit is not None:
            return hit
    return None


def _module_file(base: Path) -> str | None:
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return str(candidate)
    return None


class Resolver:
    """Real paths and module names (module_name_for) of many files, each directory resolved once: a run over
    thousands of files would otherwise lstat every component of every path. For one run only (it remembers which
    directories hold an __init__.py)."""

    def __init__(self):
        self._dirs: dict[str, str] = {}  # a directory as spelled → its real path
        self._packages: dict[str, tuple[str, ...]] = {}  # a real directory → its package's dotted parts
        self.not_links: set[str] = set()  # paths known (lstat) to be no symlink: no need to ask again

    def realpath(self, path: str) -> str:
        """os.path.realpath(path): realpath(dir)/name unless the file itself is a symlink (or not a plain name)."""
        head, tail = os.path.split(path)
        if tail in ("", ".", "..") or (path not in self.not_links and os.path.islink(path)):
            return os.path.realpath(path)
        return os.path.join(self._real_dir(head or "."), tail)

    def _real_dir(self, directory: str) -> str:
        """realpath(directory), from its parent's (memoized) and one lstat of its own (is it a symlink?)."""
        real = self._dirs.get(directory)
        if real is None:
            parent, name = os.path.split(directory)
            if name in ("", ".", "..") or os.path.islink(directory):
                real = os.path.realpath(directory)
            else:
                real = os.path.join(self._real_dir(parent or "."), name)
            self._dirs[directory] = real
        return real

    def module_name(self, path) -> tuple[str, bool]:
        """module_name_for(path), the same answer (tests/speed/test_resolver.py compares them)."""
        parent, name = os.path.split(self.realpath(os.fspath(path)))
        dot = name.rfind(".")
        stem = name[:dot] if 0 < dot < len(name) - 1 else name  # PurePath.stem
        is_package = stem == "__init__"
        parts = self._package(parent)
        return ".".join(parts if is_package else (*parts, stem)), is_package

    def _package(self, directory: str) -> tuple[str, ...]:
        parts = self._packages.get(directory)
        if parts is None:
            parts = ()
            if os.path.exists(os.path.join(directory, "__init__.py")):
                up = os.path.dirname(directory)
                parts = (*(self._package(up) if up != directory else ()), os.path.basename(directory))
            self._packages[directory] = parts
        return parts
