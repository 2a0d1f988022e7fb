"""Fixtures every emulator test may use (the emulator itself comes from tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, sdk_clients


@pytest.fixture
def clients(emulator: EmulatorHandle) -> Iterator[SyncClients]:
    """Real sync SDK clients on the freshly reset emulator."""
    made = sdk_clients(emulator)
    yield made
    made.close()
