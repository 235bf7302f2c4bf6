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
