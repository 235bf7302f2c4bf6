"""Finding, reading and atomically writing source files."""
from __future__ import annotations

import fnmatch
import io
import operator
import os
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


def encode(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def write_atomic(path: Path, data: bytes) -> None:
    """Write via a temp file in the same directory and rename, keeping the file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tfmigrate", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
