"""The rule registry points at real fixtures and every rule module documents itself."""
from importlib import import_module
from pathlib import Path

from tfmigrate.rules import RULES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_codes_are_unique():
    codes = [rule.code for rule in RULES]
    assert len(codes) == len(set(codes))


def test_rule_fixtures_exist_and_modules_are_documented():
    for rule in RULES:
        module = import_module(f"tfmigrate.rules.{rule.module}")
        assert module.__doc__ and len(module.__doc__.strip()) > 80, rule.module
        for case in rule.fixtures:
            assert (FIXTURES / case / "original.py").exists(), (rule.code, case)
            unchanged = 'expect = "unchanged"' in (FIXTURES / case / "case.toml").read_text()
            assert unchanged != (FIXTURES / case / "migrated.py").exists(), (rule.code, case)


def test_every_rule_documents_what_why_blocks_and_an_example():
    """`tfmigrate rule CODE` prints the module docstring: it must say what it converts, why that is exact (or the
    same numerics), what blocks, and show an example."""
    import re

    from tfmigrate.ruledoc import all_rules, module_of

    for rule in all_rules():
        doc = module_of(rule).__doc__
        assert "Example" in doc, rule.code
        assert re.search(r"[Bb]lock", doc), rule.code
        assert re.search(r"[Ee]xact|Why|same|equal", doc), rule.code


def test_rule_page_names_a_module_of_the_repository():
    """`Module: ...` on a rule's page is where its code is (a package's folder when the rule module is a package)."""
    import re

    from tfmigrate.ruledoc import all_rules, render

    repo = Path(__file__).resolve().parents[2]
    for rule in all_rules():
        where = re.search(r"^Module: `([^`]+)`", render(rule), re.M).group(1)
        if not rule.module.startswith("tfmigrate."):
            assert (repo / where).exists(), (rule.code, where)


def test_rule_command_prints_one_rule_and_refuses_unknown_codes():
    from typer.testing import CliRunner

    from tfmigrate.cli import app

    for rule in RULES:
        result = CliRunner().invoke(app, ["rule", rule.code.lower()])
        assert result.exit_code == 0, rule.code
        assert result.stdout.startswith(f"# {rule.name} ({rule.code})\n"), rule.code
        assert rule.summary in result.stdout and "Example" in result.stdout
    by_name = CliRunner().invoke(app, ["rule", "estimator-driver"])
    assert by_name.exit_code == 0 and "(TFM601)" in by_name.stdout
    unknown = CliRunner().invoke(app, ["rule", "TFM61"])
    assert unknown.exit_code == 2 and "did you mean TFM611 or TFM601" in unknown.stderr
    listing = CliRunner().invoke(app, ["rules"])
    assert listing.exit_code == 0 and "TFM901" in listing.stdout and "TFM601" in listing.stdout
