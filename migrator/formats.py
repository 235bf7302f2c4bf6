"""Machine-readable findings for `tfmigrate rewrite --output-format`: json, sarif, github, junit.

Every format carries the same records as the text output: the findings shown (after selection and suppression),
one record per file that failed (syntax error, unreadable), and one per file left unchanged although every
finding that blocks it is hidden, so a machine reader never sees a blocked file as clean.

- json: a list in ruff's shape (`code`, `name`, `severity`, `message`, `filename`, `location`/`end_location` with
  1-based `row`/`column`, `noqa_row`, `url`, `fix`: null — tfmigrate rewrites whole files, see `file_status`).
- sarif: SARIF 2.1.0 (one run; the rules with their docs; paths relative to the working directory under
  `%SRCROOT%`), for GitHub code scanning and other SARIF viewers.
- github: workflow commands (`::error file=…,line=…,col=…,title=TFM601::message`) that annotate a pull request.
- junit: JUnit XML, one test suite per file: a `migration` test case (fails when the file needs manual work or,
  under --check/--diff, would change; errors when it cannot be parsed) and one test case per finding.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

from .config import OUTPUT_FORMATS as FORMATS  # noqa: F401  (re-exported)
from .reporting import Report, rule_name


@dataclass
class Record:
    """One line of any output: a finding, a failed file, or a file blocked by hidden findings."""

    path: str
    line: int
    col: int  # 1-based
    severity: str  # error | note
    message: str
    code: str | None = None  # None: not a rule's finding (a file that failed, a silently blocked file)

    @property
    def title(self) -> str:
        return self.code or "tfmigrate"


def records(report: Report) -> list[Record]:
    out = [Record(d.path, d.line, d.col + 1, d.severity, d.message, d.code) for d in report.findings]
    for result in report.results:
        if result.status == "failed":
            line, col = result.error_at if result.error_at else (1, 0)
            out.append(Record(result.path, line, col + 1, "error", result.error))
        if result.path in report.blocked_silently:
            codes = ", ".join(report.blocked_silently[result.path])
            out.append(Record(result.path, 1, 1, "error", f"left unchanged: every finding that blocks it is "
                                                          f"suppressed or ignored ({codes}); it still needs manual work"))
    order = {r.path: i for i, r in enumerate(report.results)}
    out.sort(key=lambda r: (order.get(r.path, len(order)), r.path, r.line, r.col))
    return out


def write_report(report: Report, fmt: str, output_file: str | None = None) -> None:
    text = RENDER[fmt](report)
    if output_file:
        path = Path(output_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def render_json(report: Report) -> str:
    items = []
    for r in records(report):
        location = {"row": r.line, "column": r.col}
        items.append({
            "code": r.code, "name": rule_name(r.code) if r.code else None, "severity": r.severity,
            "message": r.message, "filename": str(Path(r.path).resolve()) if r.path != "<stdin>" else r.path,
            "location": location, "end_location": location, "noqa_row": r.line, "url": None, "fix": None,
            "file_status": _status(report, r.path),
        })
    return json.dumps(items, indent=2) + "\n"


def _status(report: Report, path: str) -> str | None:
    for result in report.results:
        if result.path == path:
            if result.status == "changed":
                return "converted" if report.writing else "would-convert"
            return {"skipped": "unchanged"}.get(result.status, result.status)
    return None


def _uri(path: str) -> tuple[str, str | None]:
    """A SARIF artifact location: relative to the working directory (uriBaseId %SRCROOT%) when inside it."""
    if path == "<stdin>":
        return "stdin", None
    p = Path(path).resolve()
    try:
        return p.relative_to(Path.cwd().resolve()).as_posix(), "%SRCROOT%"
    except ValueError:
        return p.as_uri(), None


def render_sarif(report: Report) -> str:
    from .cli import version
    from .ruledoc import all_rules, module_of

    rules, index = [], {}
    for rule in all_rules():
        index[rule.code] = len(rules)
        doc = (module_of(rule).__doc__ or "").strip()
        rules.append({
            "id": rule.code, "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": doc.splitlines()[0] if doc else rule.summary},
            "help": {"text": doc or rule.summary, "markdown": doc or rule.summary},
            "properties": {"tags": ["tfmigrate", "tf1-to-tf2"]},
        })
    results = []
    for r in records(report):
        uri, base = _uri(r.path)
        artifact = {"uri": uri}
        if base:
            artifact["uriBaseId"] = base
        result = {
            "level": "error" if r.severity == "error" else "note",
            "message": {"text": r.message},
            "locations": [{"physicalLocation": {"artifactLocation": artifact,
                                                "region": {"startLine": r.line, "startColumn": r.col}}}],
        }
        if r.code:
            result = {"ruleId": r.code, "ruleIndex": index[r.code], **result}
        else:
            result = {"ruleId": "tfmigrate", **result}
        results.append(result)
    run = {
        "tool": {"driver": {"name": "tfmigrate", "version": version(), "semanticVersion": version(),
                            "rules": rules}},
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "invocations": [{"executionSuccessful": report.failed == 0, "exitCode": report.exit_code()}],
        "results": results,
    }
    doc = {"$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
           "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """GitHub Actions workflow commands: errors and notes annotate the lines of a pull request."""
    lines = []
    for r in records(report):
        kind = "error" if r.severity == "error" else "notice"
        path = os.path.relpath(r.path) if r.path != "<stdin>" and os.path.isabs(r.path) else r.path
        props = f"file={_escape_property(path)},line={r.line},col={r.col},title={_escape_property(r.title)}"
        lines.append(f"::{kind} {props}::{_escape_data(r.message)}")
    return "".join(line + "\n" for line in lines)


def render_junit(report: Report) -> str:
    by_path: dict[str, list[Record]] = {}
    for r in records(report):
        by_path.setdefault(r.path, []).append(r)
    root = ET.Element("testsuites", name="tfmigrate")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for result in report.results:
        if result.status == "skipped":  # never mentions tensorflow: nothing was tested
            continue
        recs = by_path.get(result.path, [])
        suite = ET.SubElement(root, "testsuite", name=result.path)
        counts = {"tests": 0, "failures": 0, "errors": 0}

        def case(name: str, classname: str = result.path):
            counts["tests"] += 1
            return ET.SubElement(suite, "testcase", name=name, classname=classname, file=result.path)

        migration = case("migration")
        if result.status == "failed":
            counts["errors"] += 1
            ET.SubElement(migration, "error", message=result.error, type="failed")
        elif result.status == "blocked":
            counts["failures"] += 1
            ET.SubElement(migration, "failure", message="needs manual work: left unchanged", type="blocked")
        elif result.status == "changed" and not report.writing:
            counts["failures"] += 1
            ET.SubElement(migration, "failure", message="would be rewritten", type="would-change")
        for r in recs:
            if r.code is None:
                continue
            tc = case(f"{r.code} {result.path}:{r.line}:{r.col}", classname=f"tfmigrate.{r.code}")
            text = f"{r.path}:{r.line}:{r.col}: {r.severity} {r.code} {r.message}"
            if r.severity == "error":
                counts["failures"] += 1
                ET.SubElement(tc, "failure", message=r.message, type=r.code).text = text
            else:
                ET.SubElement(tc, "system-out").text = text
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


RENDER = {"json": render_json, "sarif": render_sarif, "github": render_github, "junit": render_junit}
