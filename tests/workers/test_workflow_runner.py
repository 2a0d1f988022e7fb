"""The worker runs workflows unsandboxed unless AZMC_WORKFLOW_SANDBOX asks (then with the workflows/ helpers
passed through): every module of workflows/ is then shared by all workflow instances of the process, so none
holds mutable state; and a machine lives and dies on the worker as built, either way."""

import types
import uuid
from collections import deque
from contextlib import AsyncExitStack

import pytest
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from models.status import MachineStatus, Phase
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from workers.sandbox import all_workflow_modules, passthrough_helpers, workflow_modules, workflow_runner
from workers.settings import Settings, load_settings
from workers.worker import build_workers

_MUTABLE = (list, dict, set, bytearray, deque)


def test_workflows_run_unsandboxed_unless_the_sandbox_is_asked_for(monkeypatch: pytest.MonkeyPatch):
    assert isinstance(workflow_runner(load_settings().workflow_sandbox), UnsandboxedWorkflowRunner)
    monkeypatch.setenv("AZMC_WORKFLOW_SANDBOX", "true")
    assert isinstance(workflow_runner(load_settings().workflow_sandbox), SandboxedWorkflowRunner)


def test_sandboxed_the_workflow_definitions_stay_checked_and_helpers_pass_through():
    helpers = passthrough_helpers()
    assert {"workflows.machine.workflow", "workflows.sweep.workflow"} <= workflow_modules()
    assert not workflow_modules() & set(helpers)
    # A package would take its workflow modules through with it.
    packages = {"workflows", "workflows.machine", "workflows.pool", "workflows.offerings", "workflows.sweep"}
    assert not packages & set(helpers)
    assert {"workflows.machine.creation", "workflows.machine.deletion", "workflows.machine.state",
            "workflows.machine.bookkeeping", "workflows.pool.plan"} <= set(helpers)


def test_no_workflow_module_holds_mutable_state():
    """Shared by every workflow instance of the process, state in a module would leak between machines (and
    differ on replay); a workflow defined in a passed-through helper would escape the sandbox when it is on."""
    helpers = set(passthrough_helpers())
    for name in ["workflows", *all_workflow_modules()]:
        module = __import__(name, fromlist=["_"])
        for attribute, value in vars(module).items():
            if attribute.startswith("__") or isinstance(value, types.ModuleType):
                continue
            assert not isinstance(value, _MUTABLE), \
                f"{name}.{attribute} is mutable module state: make it a tuple, frozenset or MappingProxyType"
            defined_here = isinstance(value, type) and value.__module__ == name
            assert not (name in helpers and defined_here and hasattr(value, "__temporal_workflow_definition")), \
                f"{name}.{attribute} is a workflow: it must stay sandboxed"


@pytest.mark.parametrize("sandboxed", [False, True], ids=["unsandboxed", "sandboxed"])
async def test_machine_lifecycle_runs_on_the_worker_as_built(
        workflow_env: WorkflowEnvironment, emulator: EmulatorHandle, sandboxed: bool):
    settings = Settings(task_queue=f"azmc-runner-{uuid.uuid4()}", metrics_port=0, workflow_sandbox=sandboxed)
    env = workflow_env
    async with emulator_driver(emulator, "runner-test", "token") as driver:
        machines, memory, *paced = build_workers(settings, env.client, driver)
        assert [worker.config().get("max_task_queue_activities_per_second") for worker in paced] == \
            list(settings.paces().values())  # the Azure writers, each at its budget's pace
        async with machines, memory, AsyncExitStack() as writers:
            for worker in paced:
                await writers.enter_async_context(worker)
            handle: WorkflowHandle = await start_machine(env.client, settings.task_queue,
                                                         spec_dict(subnet_id=emulator.subnet_id))
            running = await wait_for(env, handle, in_phase(Phase.RUNNING))
            assert running.inventory.has_vm
            await handle.signal("delete", {"reason": "test"})
            final: MachineStatus = await handle.result()
    assert final.phase == Phase.DELETED
    assert [r for r in emulator.resources() if r["name"].startswith("vm1")] == []
