"""End-to-end fixtures: a real Temporal dev server, the emulator and `azmc worker` processes."""

from collections.abc import Iterator

import pytest

from tests.e2e.stack import Stack, running_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One dev server + emulator + worker per test module (modules share nothing)."""
    with running_stack(tmp_path_factory.mktemp("e2e")) as running:
        yield running
