"""Shared fixtures: a live emulator subprocess (session) and a freshly reset handle per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.emulator import EmulatorHandle, EmulatorProcess
from tests.support.reaper import start_reaper

# Whatever this test process starts ends with it, even when it is killed (tests/support/reaper.py).
_REAPER = start_reaper()


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[EmulatorHandle]:
    process = EmulatorProcess("--time-scale", "0", "--seed")
    handle = process.start()
    try:
        yield handle
    finally:
        process.stop()


@pytest.fixture
def emulator(emulator_server: EmulatorHandle) -> EmulatorHandle:
    """The session emulator, reset (resources, faults, counts, settings) and re-seeded for this test."""
    emulator_server.reset()
    return emulator_server
