"""MkDocs hook: the rule pages, generated as ruff generates its own.

One page per rule code, `rules/<CODE>.md`, holding exactly what `tfmigrate rule CODE` prints
(`tfmigrate.ruledoc.render`: the registry entry of `tfmigrate.rules.RULES` / the engine's rules, then the rule
module's docstring), and the table of `rules/index.md` from the same registry. Rule text lives in the rule's
module only; nothing here is copied by hand.
"""
from __future__ import annotations

import re

from mkdocs.structure.files import File

from tfmigrate import ruledoc

TABLE_MARK = "<!-- rules-table -->"


def _rules():
    return sorted(ruledoc.all_rules(), key=lambda r: r.code)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def on_config(config):
    # the Rules section of the nav: the overview page, then one entry per code (a section whose first page is
    # its index, with Material's navigation.indexes)
    pages = [{f"{r.code} {r.name}": f"rules/{r.code}.md"} for r in _rules()]
    for i, item in enumerate(config["nav"]):
        if isinstance(item, dict) and item.get("Rules") == "rules/index.md":
            config["nav"][i] = {"Rules": ["rules/index.md", *pages]}
    return config


_HEAD = re.compile(r"^(Converts|Module|Fixtures \(original\.py → migrated\.py\)):", re.M)
# docstrings are plain text wrapped at 120 columns: a line opening one of these starts its own paragraph
_PARAGRAPH = re.compile(r"(?<=\S)\n(?=(Why exact|Why|Blocked|Example|Examples|Measured|Not converted)\b)")


def page(rule) -> str:
    """`tfmigrate rule CODE`'s text as Markdown: the registry lines as a list, the docstring's labelled parts as
    paragraphs of their own (layout only: every word is the rule's own)."""
    return _PARAGRAPH.sub("\n\n", _HEAD.sub(lambda m: f"- **{m.group(1)}:**", ruledoc.render(rule)))


def on_files(files, config):
    for rule in _rules():
        text = page(rule)
        text += f"\n---\n\nThis page is `tfmigrate rule {rule.code}` (also `tfmigrate rule {rule.name}`).\n"
        files.append(File.generated(config, f"rules/{rule.code}.md", content=text))
    return files


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "rules/index.md":
        return markdown
    rows = ["| code | name | converts |", "|---|---|---|"]
    for r in _rules():
        rows.append(f"| [{r.code}]({r.code}.md) | {r.name} | {_cell(r.summary)} |")
    return markdown.replace(TABLE_MARK, "\n".join(rows))
