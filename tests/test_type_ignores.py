"""mypy checks the shipped packages and the benches (`make lint`, docs/testing.md "Types"): every `# type: ignore`
there names the error it silences and why, and the tests, which it does not check, hold none."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]
CHECKED = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["files"]
IGNORE = re.compile(r"#\s*type:\s*ignore")
EXPLAINED = re.compile(r"# type: ignore\[[a-z-]+(, [a-z-]+)*\]  # \S.{10,}$")


def ignores(folders: list[str]) -> list[str]:
    """Each line with an ignore comment, but this file's (its patterns name the comment)."""
    return [f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for folder in folders
            for path in sorted((ROOT / folder).rglob("*.py")) if path != Path(__file__)
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if IGNORE.search(line)]


def test_every_ignore_names_its_error_and_why() -> None:
    assert {"models", "workflows"} <= set(CHECKED)
    found = ignores(CHECKED)
    assert found, "no ignore found: the search would prove nothing"
    assert [line for line in found if not EXPLAINED.search(line)] == []


def test_the_tests_are_not_checked_and_hold_no_ignore() -> None:
    assert "tests" not in CHECKED
    assert ignores(["tests"]) == []
