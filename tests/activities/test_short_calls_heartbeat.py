"""A short call run as an activity heartbeats while Azure is slow, and a local one does not try to.

As activities (check_orphan, and the short calls of runs begun before LOCAL_SHORT_CALLS) they carry
SHORT_HEARTBEAT, so a call that ran past it without a heartbeat would be cut and retried although its worker
lives; the SDK refuses a local activity's heartbeat (core logs "Activity heartbeat failed" for each one).
"""

import dataclasses
from typing import Any

from temporalio.testing import ActivityEnvironment

from activities.driver import AzureDriver
from workflows.policies import SHORT_HEARTBEAT

SLOW_S = 2.5  # past FIRST_HEARTBEAT_AFTER (1 s), when the first heartbeat goes


def _heartbeats_of(env: ActivityEnvironment) -> list[tuple[Any, ...]]:
    beats: list[tuple[Any, ...]] = []
    env.on_heartbeat = lambda *details: beats.append(details)
    return beats


async def test_a_slow_read_heartbeats_as_an_activity(driver: AzureDriver, emulator: Any, make_spec: Any) -> None:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, heartbeat_timeout=SHORT_HEARTBEAT)  # as its workflow sets it
    beats = _heartbeats_of(env)
    emulator.add_fault("resources.list", status=0, delay_s=SLOW_S)
    await env.run(driver.find_vm, make_spec("slow-vm"))
    assert beats, "a read slower than a second sent no heartbeat"
    assert all(details == ("",) for details in beats), "a read has nothing to resume: no details"


async def test_a_quick_read_sends_no_heartbeat(driver: AzureDriver, make_spec: Any) -> None:
    env = ActivityEnvironment()
    beats = _heartbeats_of(env)
    await env.run(driver.find_vm, make_spec("quick-vm"))
    assert beats == []


async def test_a_local_read_never_heartbeats(driver: AzureDriver, emulator: Any, make_spec: Any) -> None:
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, is_local=True)
    beats = _heartbeats_of(env)
    emulator.add_fault("resources.list", status=0, delay_s=SLOW_S)
    await env.run(driver.find_vm, make_spec("local-vm"))
    assert beats == []
