"""The tier lists of tests/support/tiers.py name files that exist, in the tier they claim: a file renamed or moved
would otherwise lose its tier, or its early start, without a word."""

from pathlib import Path

from tests.support.tiers import FAST, FILES, LONG_FAST_FILES, tier_of

TESTS = Path(__file__).resolve().parent


def test_every_file_given_a_tier_exists() -> None:
    assert [name for name in FILES if not (TESTS / name).is_file()] == []


def test_the_long_fast_files_exist_and_are_fast() -> None:
    assert [name for name in LONG_FAST_FILES if not (TESTS / name).is_file()] == []
    assert [name for name in LONG_FAST_FILES if tier_of(TESTS / name, TESTS) != FAST] == []
