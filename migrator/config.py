"""Configuration: `[tool.tfmigrate]` in pyproject.toml, or the top level of a tfmigrate.toml (ruff's conventions).

Found from the paths given on the command line: the nearest directory, walking up, that holds a `tfmigrate.toml`
or a `pyproject.toml` with a `[tool.tfmigrate]` table (a pyproject.toml without one is passed over). Command-line
flags override it; `--config PATH` names the file, `--config KEY=VALUE` overrides one key (TOML syntax), and
`--isolated` ignores every configuration file. Unknown keys and wrong types are errors (exit 2), with a hint.

Every key is declared once in `SCHEMA` (a `Key` says its type, help and allowed values); adding a setting is one
line there, read back with `config.get("the-key")`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from .records import field, record

TYPE_CHECKING = False  # (typing is not imported at run time: annotations only)
if TYPE_CHECKING:
    from typing import Any


def _tomllib():
    """The TOML parser, imported when a configuration is read (a run without one never pays for it)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib

TARGETS = ("auto", "keras", "ctl")
STYLES = ("auto", "native", "shim")  # how a model_fn's forward pass converts (rules/planners/shim.py)
STRATEGIES = ("keep", "default", "one-device", "mirrored", "multi-worker-mirrored", "parameter-server")
OUTPUT_FORMATS = ("text", "json", "sarif", "github", "junit")
VERDICTS = ("equivalent", "not-equivalent")

PYPROJECT, OWN_FILE = "pyproject.toml", "tfmigrate.toml"


@record(frozen=True)
class Key:
    """One configuration key. kind: str | int | float | bool | list[str] | table[list[str]] (a table of string
    lists, e.g. per-file-ignores) | table (fixed `keys`) | tables (an array of tables with `keys`)."""

    kind: str
    help: str
    choices: tuple = ()
    keys: dict[str, "Key"] | None = None


VERIFY_KEYS: dict[str, Key] = {
    "workers": Key("int", "trainers in total (chief + workers); 1 = single process"),
    "ps": Key("int", "parameter servers (async: statistical comparison)"),
    "evaluator": Key("bool", "add an evaluator task"),
    "steps": Key("int", "compare only the first K steps"),
    "repeats": Key("int", "runs of the original for the async band"),
    "statistical": Key("bool", "compare statistically a synchronous program whose own runs differ"),
    "rtol": Key("float", "relative tolerance per step"),
    "atol": Key("float", "absolute tolerance per step"),
    "timeout": Key("float", "seconds per cluster run"),
    "args": Key("list[str]", "arguments passed to both programs"),
}

CASE_KEYS: dict[str, Key] = {
    "name": Key("str", "the case's name in reports (default: the original's path)"),
    "original": Key("str", "the TF1 Estimator program, relative to this file's directory"),
    "migrated": Key("str", "the migrated TF2 program, relative to this file's directory"),
    "expect": Key("str", "the verdict this case must reach", VERDICTS),
    **VERIFY_KEYS,
}

SCHEMA: dict[str, Key] = {
    "target": Key("str", "auto | keras | ctl", TARGETS),
    "style": Key("str", "auto | native | shim: a model_fn's forward pass as Keras layers (native), kept as written "
                        "under TF's model-mapping shim (shim), or native where it converts, else the shim (auto)",
                 STYLES),
    "strategy": Key("str", "keep | default | one-device | mirrored | multi-worker-mirrored | parameter-server",
                    STRATEGIES),
    "exclude": Key("list[str]", "names or globs never searched (replaces the defaults: .git, .venv, build, ...)"),
    "extend-exclude": Key("list[str]", "names or globs never searched, added to `exclude`"),
    "force-exclude": Key("bool", "apply the excludes to files named on the command line too (pre-commit)"),
    "cache-dir": Key("str", "the rewrite result cache directory (default: $TFMIGRATE_CACHE_DIR, else under the user "
                            "cache dir)"),
    "select": Key("list[str]", "rule codes or prefixes whose findings are reported (default: ALL)"),
    "ignore": Key("list[str]", "rule codes or prefixes whose findings are not reported"),
    "per-file-ignores": Key("table[list[str]]", "glob → codes not reported in the files it matches"),
    "report-unused-suppressions": Key("bool", "report `# tfmigrate: ignore[...]` comments that hid nothing (TFM901)"),
    "output-format": Key("str", "text | json | sarif | github | junit", OUTPUT_FORMATS),
    "verify-defaults": Key("table", "defaults for `tfmigrate verify` and every case", keys=VERIFY_KEYS),
    "verify": Key("tables", "equivalence cases run by `tfmigrate verify --all` and `pytest --tfmigrate-verify`",
                  keys=CASE_KEYS),
}


class ConfigError(ValueError):
    """A configuration file or `--config` override that cannot be used (exit 2)."""


@record
class Config:
    path: Path | None = None  # the file it came from (None: no configuration)
    values: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path | None:
        """The directory relative paths and globs of the configuration are resolved against."""
        return self.path.parent.resolve() if self.path else None

    def get(self, key: str, default: Any = None) -> Any:
        if key not in SCHEMA:
            raise KeyError(f"{key!r} is not a configuration key (declare it in tfmigrate.config.SCHEMA)")
        return self.values.get(key, default)

    def pick(self, cli: Any, key: str, default: Any = None) -> Any:
        """The command line's value when it gave one (not None), else the configuration's, else `default`."""
        return cli if cli is not None else self.get(key, default)

    def describe(self) -> str:
        return str(self.path) if self.path else "no configuration file"


def _type_ok(kind: str, value: Any) -> bool:
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list[str]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "table[list[str]]":
        return isinstance(value, dict) and all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                                               for v in value.values())
    if kind == "table":
        return isinstance(value, dict)
    if kind == "tables":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    raise AssertionError(kind)


KIND_WORDS = {"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
              "list[str]": "a list of strings", "table[list[str]]": "a table of string lists",
              "table": "a table", "tables": "an array of tables ([[...]])"}


def validate(values: dict, schema: dict[str, Key], where: str) -> dict:
    """Check every key against `schema` (recursively); return the values with floats made floats."""
    out = {}
    for key, value in values.items():
        spec = schema.get(key)
        if spec is None:
            import difflib

            close = difflib.get_close_matches(key, list(schema), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"{where}: unknown key {key!r}{hint} (known keys: {', '.join(schema)})")
        if not _type_ok(spec.kind, value):
            raise ConfigError(f"{where}: {key!r} must be {KIND_WORDS[spec.kind]}, not {value!r}")
        if spec.choices and value not in spec.choices:
            raise ConfigError(f"{where}: {key!r} must be one of {', '.join(spec.choices)}, not {value!r}")
        if spec.kind == "float":
            value = float(value)
        elif spec.kind == "table":
            value = validate(value, spec.keys or {}, f"{where}.{key}")
        elif spec.kind == "tables":
            value = [validate(v, spec.keys or {}, f"{where}.{key}[{i}]") for i, v in enumerate(value)]
        out[key] = value
    return out


def _read_toml(path: Path) -> dict:
    tomllib = _tomllib()
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _section(path: Path, data: dict) -> tuple[dict, str] | None:
    """The tfmigrate table of a file, and its name for messages (None: a pyproject.toml without one)."""
    if path.name == PYPROJECT:
        tool = data.get("tool", {})
        if not isinstance(tool, dict) or "tfmigrate" not in tool:
            return None
        if not isinstance(tool["tfmigrate"], dict):
            raise ConfigError(f"{path}: [tool.tfmigrate] must be a table")
        return tool["tfmigrate"], f"{path} [tool.tfmigrate]"
    return data, str(path)


def load(path: Path | str) -> Config:
    """Read one configuration file (a pyproject.toml's [tool.tfmigrate], or any other TOML file's top level)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"configuration file not found: {path}")
    data = _read_toml(path)
    found = _section(path, data)
    if found is None:
        raise ConfigError(f"{path} has no [tool.tfmigrate] table")
    section, where = found
    return Config(path, validate(section, SCHEMA, where))


def find(start: Path | str) -> Path | None:
    """The nearest tfmigrate.toml, or pyproject.toml with [tool.tfmigrate], in `start` or a directory above it."""
    start = Path(start).resolve()
    if not start.is_dir():
        start = start.parent
    for directory in (start, *start.parents):
        own = directory / OWN_FILE
        if own.is_file():
            return own
        pyproject = directory / PYPROJECT
        if pyproject.is_file():
            try:
                if _section(pyproject, _read_toml(pyproject)) is not None:
                    return pyproject
            except ConfigError:
                return pyproject  # report its error when it is loaded, rather than pass over it silently
    return None


def common_start(paths: list[str]) -> Path:
    """Where the search for a configuration starts: the deepest directory holding every path (cwd for stdin)."""
    real = [Path(p).resolve() for p in paths if p != "-"]
    if not real:
        return Path.cwd()
    dirs = [p if p.is_dir() else p.parent for p in real]
    try:
        return Path(os.path.commonpath([str(d) for d in dirs]))
    except ValueError:
        return dirs[0]


def override(config: Config, assignment: str) -> Config:
    """`--config KEY=VALUE`, the value in TOML syntax (`--config "select=['TFM6']"`) or a bare word (`target=ctl`)."""
    key, _, raw = assignment.partition("=")
    key = key.strip()
    if not key:
        raise ConfigError(f"--config {assignment!r}: expected KEY=VALUE or a configuration file")
    tomllib = _tomllib()
    try:
        parsed = tomllib.loads(f"{key} = {raw.strip()}")
    except tomllib.TOMLDecodeError:
        parsed = {key: raw.strip()}  # a bare word (`--config target=ctl`) is a string
    values = validate(parsed, SCHEMA, f"--config {assignment!r}")
    merged = dict(config.values)
    for k, v in values.items():  # a dotted key (`verify-defaults.workers=4`) updates its table
        merged[k] = {**merged[k], **v} if isinstance(v, dict) and isinstance(merged.get(k), dict) else v
    return Config(config.path, merged)


def resolve(paths: list[str], config_args: list[str] | None = None, isolated: bool = False) -> Config:
    """The configuration a command runs with: `--config FILE` (at most one), else the nearest file found from
    `paths` unless `--isolated`; then the `--config KEY=VALUE` overrides."""
    files = [c for c in config_args or () if "=" not in c or Path(c).is_file()]
    assignments = [c for c in config_args or () if c not in files]
    if len(files) > 1:
        raise ConfigError(f"--config names more than one file: {', '.join(files)}")
    if files:
        config = load(files[0])
    elif isolated:
        config = Config()
    else:
        found = find(common_start(paths))
        config = load(found) if found else Config()
    for assignment in assignments:
        config = override(config, assignment)
    return config
