#!/usr/bin/env python
"""Sweep: how `tfmigrate rewrite` does on real public Estimator programs, laid out whole as in their repositories.

The corpus is never committed: it lives outside the repository (e.g. /work/sweep/corpus) and is described by its
MANIFEST.tsv, one program a line, tab-separated with a header:

  dir      the program's root, relative to the corpus directory: `<owner>__<name>/<root in the repository>` (a
           directory, or one file for a script or notebook); tfmigrate is run on exactly this path
  repo     owner/name on GitHub
  commit   the commit it was exported from
  subdir   the repository paths exported (comma-separated, each under the root; usually the root itself)
  kind     package (a trainer package / directory with its sibling modules) | script | notebook

Rebuilding the corpus from a MANIFEST: bring each repository's snapshot onto the machine (the `fetch` tool:
github:owner/name -> /work/.mirror/owner+name/repo[/.git]), then

  python bench/sweep.py build MANIFEST.tsv --mirrors /work/.mirror --corpus /work/sweep/corpus

which writes the files of `git --git-dir=<mirror> ls-tree -r <commit> <subdir>...` into <corpus>/<owner>__<name>
(paths kept; blobs a snapshot lacks are skipped with a warning; an empty commit column takes the mirror's HEAD
and is filled in) and writes <corpus>/MANIFEST.tsv.

Running the sweep (single-threaded and niced on a shared machine):

  nice -n 10 python bench/sweep.py run /work/sweep/corpus --tfmigrate /work/venv-sweep/bin/tfmigrate \
      --json /work/sweep/report.json

Each program is copied to a scratch directory and migrated whole, as a user would from the layout root:
`tfmigrate rewrite --out OUT --output-format json --isolated --no-cache -j1 <dir>` (--isolated: the corpus'
own configuration files are not ours to read; --no-cache: every run measures the code, not a cache), with a
timeout per program (--timeout, 120 s).

A file has Estimator code when its code (a .py file, or a notebook's code cells without the `!`/`%` lines)
names the Estimator API in an identifier: some dotted name (an attribute chain, also with its import alias
spelled out, or an import's module path / `module.name`) that
  - starts with `tensorflow_estimator`, or
  - has a part `estimator` right after `tf`, `tensorflow`, `v1`, `v2`, `keras`, `python` or `contrib`
    (tf.estimator, tf.compat.v1.estimator, tf.keras.estimator, tensorflow.python.estimator, tf.contrib.estimator),
  - has `learn` right after `contrib` (tf.contrib.learn, from tensorflow.contrib import learn), or
  - has a part TPUEstimator or TPUEstimatorSpec (tf.contrib.tpu.TPUEstimator, tf.estimator.tpu...).
Strings, comments and docstrings do not count. Files whose code does not parse as Python 3 are read the same
way from their tokens (comments and strings dropped), so old Python 2 programs are still classified.

Every file with Estimator code gets one outcome:
  converted   tfmigrate rewrote it (the file under OUT differs from the input) and left no error finding
  flagged     left unchanged (or rewritten) with >= 1 error finding: manual work named by a rule code
  silent      has Estimator code, yet unchanged with no error finding (not visited, skipped by the prefilter,
              or left alone): must be 0
  unparsable  tfmigrate reported a syntax/decoding error on the user's own file (Python 2 code, say)
  crashed     an internal error, a crash of the whole run (no JSON), or the timeout ("crashed: timeout")
A program is fully converted when it has Estimator code and every such file is converted.

Printed: a line per program, the totals per outcome and per kind, programs fully converted, and the histogram of
FIRST blockers over flagged files (the file's first error finding by position, TFM600 "left unchanged with its
unit" only when the file has no other: its code and a normalised message prefix), most frequent first, each with
an example file:line. --json writes all of it.
"""
from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

_SCRIPT = Path(sys.executable).parent / "tfmigrate"
TFMIGRATE = str(_SCRIPT) if _SCRIPT.exists() else (shutil.which("tfmigrate") or "tfmigrate")
MANIFEST_FIELDS = ("dir", "repo", "commit", "subdir", "kind")
OUTCOMES = ("converted", "flagged", "silent", "unparsable", "crashed")

# ---- what counts as Estimator code --------------------------------------------------------------------------

_BEFORE_ESTIMATOR = {"tf", "tensorflow", "v1", "v2", "keras", "python", "contrib"}
_TPU_NAMES = {"TPUEstimator", "TPUEstimatorSpec"}


def is_estimator_name(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[0] == "tensorflow_estimator" or _TPU_NAMES.intersection(parts):
        return True
    for before, part in zip(parts, parts[1:]):
        if (part == "estimator" and before in _BEFORE_ESTIMATOR) or (part == "learn" and before == "contrib"):
            return True
    return False


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _names_ast(tree: ast.AST, aliases: dict[str, str]) -> set[str]:
    """Every dotted name of the code, import aliases spelled out (`import tensorflow.compat.v1 as tf1`:
    tf1.estimator is tensorflow.compat.v1.estimator); `aliases` carries them from one notebook cell to the next."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
            aliases.update((a.asname, a.name) for a in node.names if a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
            aliases.update((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)):
            dotted = _dotted(node)
            if dotted:
                names.add(dotted)
                head, _, rest = dotted.partition(".")
                if head in aliases:
                    names.add(aliases[head] + (f".{rest}" if rest else ""))
    return names


def _names_tokens(source: str) -> set[str]:
    """Dotted names from the token stream (code that ast cannot parse): NAME ('.' NAME)*, plus `from X import a`."""
    names, chain, last, from_module, importing = set(), [], None, None, False
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        tokens = []  # an unterminated construct: what was read before it is lost; fall back to a plain scan
        names.update(re.findall(r"[A-Za-z_][\w.]*", re.sub(r"#.*", "", source)))
    for tok in tokens:
        if tok.type == tokenize.NAME:
            if tok.string == "from":
                from_module, importing = "", False
            elif tok.string == "import" and from_module is not None:
                from_module, importing = ".".join(chain), True
            elif last == "." and chain:
                chain.append(tok.string)
            else:
                _flush(chain, names, from_module if importing else None)
                chain = [tok.string]
        elif tok.type == tokenize.OP and tok.string == ".":
            pass
        else:
            _flush(chain, names, from_module if importing else None)
            chain = []
            if tok.type in (tokenize.NEWLINE, tokenize.NL):
                from_module, importing = None, False
        last = tok.string if tok.type == tokenize.OP else None
    _flush(chain, names, from_module if importing else None)
    return names


def _flush(chain: list[str], names: set[str], module: str | None) -> None:
    if chain:
        names.add(".".join(chain))
        if module:
            names.add(f"{module}.{'.'.join(chain)}")


def _code_of(path: Path, data: bytes) -> list[str]:
    """The code to read: a .py file's text, or each code cell of a notebook (magics and shell lines dropped)."""
    text = data.decode("utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return [text]
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return []
    out = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            out.append("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("!", "%"))))
    return out


def estimator_names(path: Path, data: bytes) -> list[str]:
    """The Estimator API names the file's code uses (empty: no Estimator code)."""
    found, aliases = set(), {}
    for source in _code_of(path, data):
        try:
            names = _names_ast(ast.parse(source), aliases)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            names = _names_tokens(source)
        found.update(n for n in names if is_estimator_name(n))
    return sorted(found)


# ---- one program --------------------------------------------------------------------------------------------

@dataclass
class FileOutcome:
    path: str  # relative to the corpus
    outcome: str
    names: list[str]
    first_blocker: str | None = None  # "CODE normalised message" of the first error finding
    where: str | None = None  # path:line of that finding
    detail: str | None = None  # why crashed / unparsable / silent


@dataclass
class ProgramResult:
    dir: str
    kind: str
    exit_code: int | None
    seconds: float
    files: list[FileOutcome] = field(default_factory=list)
    changed_other: int = 0  # files without Estimator code that tfmigrate changed
    error: str | None = None

    def counts(self) -> Counter:
        return Counter(f.outcome for f in self.files)

    @property
    def fully_converted(self) -> bool:
        return bool(self.files) and all(f.outcome == "converted" for f in self.files)


def normalise(message: str, width: int = 80) -> str:
    """A message's prefix with the program's own words masked (`code`, "strings", 'names', numbers, a notebook's
    `code cell N:`), so findings of one cause count together."""
    text = re.sub(r"^code cell \d+: ", "", message)
    text = re.sub(r"`[^`]*`|\"[^\"]*\"|'[^'\s]*'", "…", text)
    text = re.sub(r"\b\d+\b", "N", " ".join(text.split()))
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width)
    return text[:cut if cut > width // 2 else width].rstrip(" ,:;") + "…"


def _program_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".py", ".ipynb"))


def classify(names: list[str], source: bytes, output: bytes | None, records: list[dict]) -> tuple[str, str | None]:
    """(outcome, detail) of one file with Estimator code, from its bytes before and after and its JSON records."""
    failed = [r for r in records if r.get("file_status") == "failed" and r.get("code") is None]
    if failed:
        message = failed[0].get("message", "")
        return ("crashed" if message.startswith("internal error") else "unparsable"), message[:200]
    if any(r.get("severity") == "error" for r in records):
        return "flagged", None
    if output is not None and output != source:
        return "converted", None
    if output is None:
        return "silent", "not in the output (not visited)"
    statuses = {r.get("file_status") for r in records} - {None}
    return "silent", f"unchanged ({', '.join(sorted(statuses)) or 'no finding'})"


def run_program(corpus: Path, entry: dict, tfmigrate: str, timeout: float, scratch: Path) -> ProgramResult:
    rel = Path(entry["dir"])
    top = rel.parts[0]
    work = scratch / top
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(corpus / top, work, symlinks=True)  # the whole exported tree: the program's siblings too
    root, out = scratch / rel, scratch / "_out"
    shutil.rmtree(out, ignore_errors=True)
    files = _program_files(root)
    before = {p: p.read_bytes() for p in files}
    cmd = [tfmigrate, "rewrite", "--out", str(out), "--output-format", "json", "--isolated", "--no-cache", "-j1",
           str(rel)]
    start = time.perf_counter()
    result = ProgramResult(entry["dir"], entry.get("kind", ""), None, 0.0)
    try:
        proc = subprocess.run(cmd, cwd=scratch, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc, result.error = None, "timeout"
    result.seconds = round(time.perf_counter() - start, 2)
    records: list[dict] | None = None
    if proc is not None:
        result.exit_code = proc.returncode
        try:
            records = json.loads(proc.stdout)  # tfmigrate prints `[]` when it finds nothing: empty is a crash
        except ValueError:
            tail = proc.stderr.decode(errors="replace").strip().splitlines()
            result.error = f"exit {proc.returncode}, no JSON: {tail[-1] if tail else ''}"[:300]
    by_file: dict[Path, list[dict]] = {}
    for r in records or []:
        by_file.setdefault(Path(r.get("filename", "")).resolve(), []).append(r)
    for path in files:
        data = before[path]
        names = estimator_names(path, data)
        relative_out = Path(path.name) if root.is_file() else path.relative_to(root)
        target = out / (rel if root.is_file() else relative_out)
        output = target.read_bytes() if target.is_file() else None
        if not names:
            result.changed_other += output is not None and output != data
            continue
        shown = str(rel if root.is_file() else rel / relative_out)
        if result.error:
            outcome = FileOutcome(shown, "crashed", names, detail=result.error)
        else:
            mine = sorted(by_file.get(path.resolve(), []), key=lambda r: (r["location"]["row"], r["location"]["column"]))
            kind, detail = classify(names, data, output, mine)
            outcome = FileOutcome(shown, kind, names, detail=detail)
            errors = [r for r in mine if r.get("severity") == "error" and r.get("code")]
            if kind == "flagged" and errors:
                # TFM600 (left unchanged with the rest of its unit) sits at line 1: a file's own blocker goes first
                first = next((r for r in errors if r["code"] != "TFM600"), errors[0])
                outcome.first_blocker = f"{first['code']} {normalise(first.get('message', ''))}"
                cell = re.match(r"code cell \d+", first.get("message", ""))
                outcome.where = f"{shown}:{first['location']['row']}" + (f" ({cell.group()})" if cell else "")
        result.files.append(outcome)
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    return result


# ---- the whole corpus ---------------------------------------------------------------------------------------

def read_manifest(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return [row for row in csv.DictReader(f, delimiter="\t") if row.get("dir") and not row["dir"].startswith("#")]


def sweep(corpus: Path, tfmigrate: str, timeout: float, only: str | None = None, echo=print) -> dict:
    entries = read_manifest(corpus / "MANIFEST.tsv")
    if only:
        entries = [e for e in entries if re.search(only, e["dir"])]
    programs = []
    with tempfile.TemporaryDirectory(prefix="tfm-sweep-") as tmp:
        for entry in entries:
            result = run_program(corpus, entry, tfmigrate, timeout, Path(tmp))
            programs.append(result)
            c = result.counts()
            echo(f"{result.dir[-78:]:78} {result.kind[:8]:8} " + " ".join(f"{k[:4]}={c[k]}" for k in OUTCOMES)
                 + f"  {result.seconds:6.1f}s" + (f"  {result.error}" if result.error else ""))
    return summarise(programs)


def summarise(programs: list[ProgramResult]) -> dict:
    totals, by_kind = Counter(), {}
    for p in programs:
        totals.update(p.counts())
        by_kind.setdefault(p.kind, Counter()).update(p.counts())
    blockers: dict[str, list[str]] = {}
    for p in programs:
        for f in p.files:
            if f.outcome == "flagged":
                blockers.setdefault(f.first_blocker or "(no rule code)", []).append(f.where or f.path)
    histogram = [{"blocker": k, "files": len(v), "example": v[0]}
                 for k, v in sorted(blockers.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    with_code = [p for p in programs if p.files]
    return {
        "programs": len(programs),
        "programs_with_estimator_code": len(with_code),
        "programs_fully_converted": sum(p.fully_converted for p in programs),
        "files": {k: totals[k] for k in OUTCOMES},
        "by_kind": {kind: {k: c[k] for k in OUTCOMES} for kind, c in sorted(by_kind.items())},
        "changed_without_estimator_code": sum(p.changed_other for p in programs),
        "first_blockers": histogram,
        "first_blocker_codes": dict(Counter(row["blocker"].split()[0] for row in histogram for _ in range(row["files"]))
                                    .most_common()),
        "silent_files": [asdict(f) for p in programs for f in p.files if f.outcome == "silent"],
        "results": [{**asdict(p), "fully_converted": p.fully_converted} for p in programs],
    }


def print_summary(report: dict, top: int, echo=print) -> None:
    f = report["files"]
    echo(f"\nfiles with Estimator code: {sum(f.values())}  " + "  ".join(f"{k} {f[k]}" for k in OUTCOMES))
    for kind, c in report["by_kind"].items():
        echo(f"  {kind:9} " + "  ".join(f"{k} {c[k]}" for k in OUTCOMES))
    echo(f"programs fully converted: {report['programs_fully_converted']} of {report['programs_with_estimator_code']}"
         f" with Estimator code ({report['programs']} in the corpus)")
    echo(f"files without Estimator code changed: {report['changed_without_estimator_code']}")
    echo(f"\nfirst blockers over {f['flagged']} flagged files (top {top}):")
    echo("  by code: " + ", ".join(f"{code} {n}" for code, n in report["first_blocker_codes"].items()))
    for row in report["first_blockers"][:top]:
        echo(f"  {row['files']:4}  {row['blocker']:82}  e.g. {row['example']}")
    for s in report["silent_files"]:
        echo(f"  SILENT {s['path']}: {s['detail']}  ({', '.join(s['names'][:3])})")


# ---- rebuilding the corpus ----------------------------------------------------------------------------------

def _git_dir(mirrors: Path, repo: str) -> Path:
    base = mirrors / repo.replace("/", "+") / "repo"
    return base / ".git" if (base / ".git").is_dir() else base


def _export(git_dir: Path, commit: str, paths: list[str], dest: Path) -> None:
    """The files under `paths` at `commit` into dest (git archive stops at a snapshot's absent large blobs)."""
    git = ["git", f"--git-dir={git_dir}"]
    listing = subprocess.run([*git, "ls-tree", "-r", "-z", commit, "--", *paths], check=True, capture_output=True)
    for item in filter(None, listing.stdout.split(b"\0")):
        meta, name = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind != b"blob" or mode == b"120000":
            continue  # submodules and symlinks: not part of a program's own code
        blob = subprocess.run([*git, "cat-file", "blob", sha.decode()], capture_output=True)
        if blob.returncode:
            print(f"warning: {name.decode()}: absent from the snapshot, skipped", file=sys.stderr)
            continue
        target = dest / name.decode()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)


def build(manifest: Path, mirrors: Path, corpus: Path) -> None:
    rows = read_manifest(manifest)
    corpus.mkdir(parents=True, exist_ok=True)
    for row in rows:
        git_dir = _git_dir(mirrors, row["repo"])
        if not row.get("commit"):
            row["commit"] = subprocess.run(["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], check=True,
                                           capture_output=True, text=True).stdout.strip()
        dest = corpus / row["repo"].replace("/", "__")
        dest.mkdir(parents=True, exist_ok=True)
        root = row["dir"].split("/", 1)[1] if "/" in row["dir"] else "."
        paths = [p for p in (row.get("subdir") or root).split(",") if p]
        _export(git_dir, row["commit"], paths, dest)
    with (corpus / "MANIFEST.tsv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, MANIFEST_FIELDS, delimiter="\t", extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="sweep a corpus")
    run.add_argument("corpus", type=Path)
    run.add_argument("--tfmigrate", default=TFMIGRATE)
    run.add_argument("--timeout", type=float, default=120.0, help="seconds per program")
    run.add_argument("--only", help="regex on the MANIFEST dir: run these programs only")
    run.add_argument("--json", type=Path, help="write the report here")
    run.add_argument("--top", type=int, default=15)
    b = sub.add_parser("build", help="export a MANIFEST's programs from fetched mirrors into a corpus directory")
    b.add_argument("manifest", type=Path)
    b.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    b.add_argument("--corpus", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.manifest, args.mirrors, args.corpus)
        return 0
    report = sweep(args.corpus.resolve(), args.tfmigrate, args.timeout, args.only)
    print_summary(report, args.top)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
