"""Machine-readable findings for `tfmigrate rewrite --output-format`: json, sarif, github, junit."""
from __future__ import annotations

import sys

from .reporting import Report

FORMATS = ("text", "json", "sarif", "github", "junit")


def write_report(report: Report, fmt: str, output_file: str | None = None) -> None:
    raise NotImplementedError(fmt)
