"""Shared fixtures: a live emulator subprocess and a time-skipping Temporal server (one of each per test
process), a freshly reset emulator per test, and the test tiers (docs/testing.md, "Tiers")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

import pytest

from tests.support.emulator import EmulatorHandle, EmulatorProcess
from tests.support.reaper import start_reaper
from tests.support.tiers import mark_tiers, register, slowest_tier_first
from tests.support.typer_command import built_once

if TYPE_CHECKING:
    from temporalio.testing import WorkflowEnvironment

# Whatever this test process starts ends with it, even when it is killed (tests/support/reaper.py).
_REAPER = start_reaper()
built_once()  # CliRunner builds azmc's click command once, not at every invoke (tests/support/typer_command.py)

AUTO, SHARED, FRESH = "auto", "shared", "fresh"
SHARED_SERVER = "shared_server"  # pytestmark = pytest.mark.shared_server: the module runs on the shared server


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--workflow-environment", choices=(AUTO, SHARED, FRESH), default=AUTO,
        help="auto: the process's shared time-skipping Temporal server for modules marked shared_server, a "
             "fresh one per test elsewhere (default); shared: the shared one for every test; fresh: a fresh one "
             "for every test, to tell whether a failure comes from what an earlier test left on the shared one")


def pytest_configure(config: pytest.Config) -> None:
    register(config)
    config.addinivalue_line("markers", f"{SHARED_SERVER}: the module's tests run on the shared time-skipping server")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mark_tiers(config, items)
    slowest_tier_first(items)


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


class _SharedServer:
    """The process's time-skipping test server, started when a test first asks for it."""

    def __init__(self) -> None:
        self._running: AbstractAsyncContextManager[WorkflowEnvironment] | None = None
        self._env: WorkflowEnvironment | None = None

    async def env(self) -> WorkflowEnvironment:
        if self._env is None:
            from tests.workflows.helpers import time_skipping_env

            self._running = time_skipping_env()
            self._env = await self._running.__aenter__()
        return self._env

    async def stop(self) -> None:
        if self._running is not None:
            await self._running.__aexit__(None, None, None)


@pytest.fixture(scope="session")
async def time_skipping_server() -> AsyncIterator[_SharedServer]:
    """One time-skipping test server per test process (azmc's search attributes registered)."""
    shared = _SharedServer()
    try:
        yield shared
    finally:
        await shared.stop()


@pytest.fixture
async def workflow_env(
    request: pytest.FixtureRequest, time_skipping_server: _SharedServer,
) -> AsyncIterator[WorkflowEnvironment]:
    """The time-skipping Temporal for this test. On the shared server each test runs its workers on task
    queues of its own and stops them before it ends; whatever workflow it left open is terminated after it,
    so that the next test finds the server idle (time skips only while no task waits)."""
    from tests.workflows.helpers import end_open_workflows, time_skipping_env

    chosen = request.config.getoption("--workflow-environment")
    if chosen == FRESH or (chosen == AUTO and not request.node.get_closest_marker(SHARED_SERVER)):
        async with time_skipping_env() as env:
            yield env
        return
    shared = await time_skipping_server.env()
    try:
        yield shared
    finally:
        await end_open_workflows(shared.client)
