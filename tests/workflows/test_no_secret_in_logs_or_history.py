"""The Azure token a worker holds never reaches a log line or a workflow history, even with the Azure
SDK's HTTP logging turned all the way up (it logs every request's headers, Authorization redacted)."""

import logging

import pytest

from models.status import Phase
from tests.workflows.conftest import TOKEN
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

SDK_HTTP_LOG = "azure.core.pipeline.policies.http_logging_policy"


async def test_a_whole_lifecycle_logs_and_records_no_token(stack: Stack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger=SDK_HTTP_LOG)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete", {"reason": "test done"})
    assert (await handle.result()).phase == Phase.DELETED

    sdk_lines = [r.getMessage() for r in caplog.records if r.name == SDK_HTTP_LOG]
    assert any("Authorization" in line for line in sdk_lines)  # the header was logged: as REDACTED
    leaks = [r.getMessage() for r in caplog.records if TOKEN in r.getMessage() or TOKEN in str(vars(r))]
    assert leaks == []
    history = (await handle.fetch_history()).to_json()
    assert TOKEN not in history
