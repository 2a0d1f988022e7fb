"""A wait for a machine's status that fails shows the end of the machine's history beside its last status, so a
flake shows which task or activity it stalled on (tests/workflows/helpers.py, `wait_for`)."""

from datetime import timedelta

import pytest

from models.status import Phase
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack


async def test_a_failed_wait_shows_the_machines_last_events(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    with pytest.raises(AssertionError) as failed:
        await wait_for(stack.env, handle, in_phase(Phase.DELETED), virtual_limit=timedelta(seconds=3))
    message = str(failed.value)
    assert message.startswith("not reached within 0:00:03 virtual: {") and '"phase": "Running"' in message
    events = message.split("its last events:\n")[1].splitlines()
    assert len(events) == 15 and any("TIMER_STARTED" in event for event in events), events  # its next check
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
