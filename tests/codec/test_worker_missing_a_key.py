"""A key rotation rolled out in the wrong order destroys nothing (real dev server, the real driver, the emulator):
- a Running machine whose history is sealed with k2, picked up by a worker with k1 only (it replays the
  history): its workflow tasks fail naming k2; the workflow stays open, never failed (the fleet sweep would
  collect the VM of a closed one) and its VM stays; a worker with k2 then takes it on;
- a `delete` sealed with k3, which that worker lacks, is refused (the status names it) and marked: a worker
  that has k3 replays the run and refuses it too (no nondeterminism, no deletion), until a `delete` it reads.
"""

import asyncio

from temporalio.client import WorkflowExecutionStatus, WorkflowHandle

from cli.machines import apply
from codec.keys import new_key_json as key
from codec.keys import parse_keys
from models.status import MachineStatus, Phase
from tests.codec.keyed import keyed_client, keyed_worker, rotation_stack
from tests.support.emulator import EmulatorHandle
from tests.support.histories import task_failure_messages

K1 = parse_keys(key("k1"), "test")
K12 = K1.merged(parse_keys(key("k2"), "test"))
K123 = K12.merged(parse_keys(key("k3"), "test"))


async def _status(handle: WorkflowHandle, done: str, accept: object) -> MachineStatus:
    for _ in range(300):
        status = await handle.query("status", result_type=MachineStatus)
        if accept(status):
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"not {done}: {status.model_dump_json(indent=1)}")


async def test_a_worker_missing_a_key_waits_and_a_refusal_for_a_key_stays(emulator: EmulatorHandle) -> None:
    async with rotation_stack(emulator) as stack:
        env, driver, queue, spec = stack.env, stack.driver, stack.queue, stack.spec
        current = await keyed_client(env, K12)  # the installation's keys: k2 seals
        handle = current.get_workflow_handle((await apply(current, spec, queue)).workflow_id,
                                             result_type=MachineStatus)
        async with keyed_worker(env, K12, driver, queue):
            await _status(handle, "Running", lambda s: s.phase == Phase.RUNNING)

        # A worker without k2 replays the history to take a `reconcile`: its tasks fail, naming k2.
        await (await keyed_client(env, K1)).get_workflow_handle(handle.id).signal("reconcile")
        async with keyed_worker(env, K1, driver, queue):
            for _ in range(100):
                failures = await task_failure_messages(handle)
                if failures:
                    break
                await asyncio.sleep(0.3)
        assert "codec key 'k2', which this process does not have (keys: k1)" in failures[0], failures
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
        assert [r["name"] for r in emulator.resources("virtualMachines")] == ["vm1"]

        async with keyed_worker(env, K12, driver, queue):
            await handle.signal("reconcile")
            # A client ahead of the workers seals `delete` with k3: refused, named, the machine runs on.
            await (await keyed_client(env, K123)).get_workflow_handle(handle.id).signal("delete", {"reason": "k3"})
            status = await _status(handle, "refused", lambda s: s.refused)
        assert status.phase == Phase.RUNNING
        assert [(m.kind, m.name) for m in status.refused] == [("signal", "delete")]
        assert "codec key 'k3', which this process does not have (keys: k1, k2)" in status.refused[0].reason
        # This worker seals with k3: read with every key from here on.
        reader = (await keyed_client(env, K123)).get_workflow_handle(handle.id, result_type=MachineStatus)
        failed_before = len(await task_failure_messages(reader))

        # A worker with k3 replays the run: the marked refusal stands, and only a readable `delete` deletes.
        async with keyed_worker(env, K123, driver, queue):
            await handle.signal("reconcile")
            await _status(reader, "Running", lambda s: s.phase == Phase.RUNNING)
            await handle.signal("delete", {"reason": "readable"})
            final = await reader.result()
        assert final.phase == Phase.DELETED and [m.name for m in final.refused] == ["delete"]
        assert len(await task_failure_messages(reader)) == failed_before
        assert emulator.resources("virtualMachines") == []

