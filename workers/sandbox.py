"""The worker's workflow sandbox: workflows/ helper modules are passed through, workflow definitions are not.

The sandbox re-imports every module it does not pass through for each workflow instance it creates (a
machine's first task, every cache eviction, every continue-as-new). For MachineLifecycle that was the
whole workflows/ package, pydantic models included: about a quarter of the worker's CPU in the lifecycle
bench (bench/lifecycle.py, profiled with py-spy). Temporal's guidance is to pass through modules "in
separate files whose calls will be deterministic": the helper modules (creation, deletion, health, the
carried state...) are, and they hold no mutable module state (tests/workers/test_sandbox_passthrough.py
checks both). The modules that define a workflow stay sandboxed, so their own code is still checked.
The workflow tests (tests/workflows) run the default, stricter sandbox, where nothing of workflows/ is
passed through, so a non-deterministic call in a helper still fails there.
"""

import importlib
import pkgutil

from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

import workflows


def workflow_modules() -> set[str]:
    """The modules that define a workflow registered on the worker: they stay in the sandbox."""
    return {definition.__module__ for definition in workflows.ALL_WORKFLOWS}


def passthrough_helpers() -> list[str]:
    """Every module of the workflows package but the package itself and the workflow definitions."""
    names = [f"{workflows.__name__}.{info.name}" for info in pkgutil.iter_modules(workflows.__path__)]
    keep_sandboxed = workflow_modules()
    helpers = sorted(name for name in names if name not in keep_sandboxed)
    for name in helpers:
        importlib.import_module(name)  # imported once, outside the sandbox, before any workflow runs
    return helpers


def workflow_runner() -> SandboxedWorkflowRunner:
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(*passthrough_helpers()))
