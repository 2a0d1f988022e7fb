"""The worker passes workflows/ helper modules through the sandbox (no re-import per workflow instance):
only modules that define no workflow and hold no mutable state, and a machine still lives and dies on it."""

import types
import uuid
from collections import deque

from temporalio.client import WorkflowHandle
from temporalio.worker import Worker

from models.status import MachineStatus, Phase
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import in_phase, spec_dict, start_machine, time_skipping_env, wait_for
from workers.sandbox import passthrough_helpers, workflow_modules
from workers.settings import Settings
from workers.worker import build_worker

_MUTABLE = (list, dict, set, bytearray, deque)


def test_workflow_definitions_stay_sandboxed_and_helpers_pass_through():
    helpers = passthrough_helpers()
    assert {"workflows.lifecycle", "workflows.fleet_sweep"} <= workflow_modules()
    assert not workflow_modules() & set(helpers)
    assert "workflows" not in helpers  # the package would take its workflow modules through with it
    assert {"workflows.creation", "workflows.deletion", "workflows.state", "workflows.machine"} <= set(helpers)


def test_no_passed_through_module_defines_a_workflow_or_holds_mutable_state():
    """Passed through, a module is shared by every workflow instance of the process: any state in it
    would leak between machines (and differ on replay), and a workflow defined there would run unsandboxed."""
    for name in passthrough_helpers():
        module = __import__(name, fromlist=["_"])
        for attribute, value in vars(module).items():
            if attribute.startswith("__") or isinstance(value, types.ModuleType):
                continue
            assert not isinstance(value, _MUTABLE), \
                f"{name}.{attribute} is mutable module state: make it a tuple, frozenset or MappingProxyType"
            defined_here = isinstance(value, type) and value.__module__ == name
            assert not (defined_here and hasattr(value, "__temporal_workflow_definition")), \
                f"{name}.{attribute} is a workflow: it must stay sandboxed"


async def test_machine_lifecycle_runs_on_the_worker_as_built(emulator: EmulatorHandle):
    settings = Settings(task_queue=f"azmc-sandbox-{uuid.uuid4()}", metrics_port=0)
    async with (emulator_driver(emulator, "sandbox-test", "token") as driver, time_skipping_env() as env):
        worker: Worker = build_worker(settings, env.client, driver)
        async with worker:
            handle: WorkflowHandle = await start_machine(env.client, settings.task_queue,
                                                         spec_dict(subnet_id=emulator.subnet_id))
            running = await wait_for(env, handle, in_phase(Phase.RUNNING))
            assert running.inventory.has_vm
            await handle.signal("delete", {"reason": "test"})
            final: MachineStatus = await handle.result()
    assert final.phase == Phase.DELETED
    assert [r for r in emulator.resources() if r["name"].startswith("vm1")] == []
