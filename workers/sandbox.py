"""How the worker runs workflow code: without Temporal's sandbox by default; with it on AZMC_WORKFLOW_SANDBOX.

The sandbox checks determinism at run time: it re-imports the workflow modules for every workflow instance
(a machine's first task, every cache eviction, every continue-as-new) and runs each activation through
restricted module proxies. That cost the worker 30-40% of its CPU in the lifecycle bench (bench/lifecycle.py,
profiled with py-spy: 134 ms per machine lifecycle sandboxed with the helpers passed through, 79 ms without),
and it re-checks code that never changes between instances: this worker runs azmc's own workflows only.
Determinism is checked where it can fail a build instead: on the source (tests/test_deterministic_code.py), by
replaying the recorded histories and every workflow test's own runs (tests/workflows/replay_check.py), which run
unsandboxed as the worker does, and by a lifecycle run sandboxed (tests/workers/test_workflow_runner.py).
Unsandboxed, every module of workflows/ is shared by all instances of the process, so none may hold mutable
module state (the same test file checks).

With AZMC_WORKFLOW_SANDBOX=true the sandbox runs, with the workflows/ helper modules passed through (imported
once): the modules that define a workflow stay sandboxed, so their own code is still checked.
"""

import importlib
import pkgutil

from temporalio.worker import UnsandboxedWorkflowRunner, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

import workflows
from workflows.registry import ALL_WORKFLOWS


def workflow_modules() -> set[str]:
    """The modules that define a workflow registered on the worker: they stay in the sandbox."""
    return {definition.__module__ for definition in ALL_WORKFLOWS}


def all_workflow_modules() -> list[str]:
    """Every module of the workflows package and its flows' folders, imported (once, outside any sandbox)."""
    names = [info.name for info in pkgutil.walk_packages(workflows.__path__, f"{workflows.__name__}.")]
    for name in names:
        importlib.import_module(name)
    return sorted(names)


def passthrough_helpers() -> list[str]:
    """Every module of the workflows package but the packages and the workflow definitions.

    A package passed through takes every module under it along (the sandbox matches a name's parents too),
    so the flows' folders (workflows.machine, ...) stay sandboxed and only their helper modules pass.
    """
    keep_sandboxed = workflow_modules()
    packages = {info.name for info in pkgutil.walk_packages(workflows.__path__, f"{workflows.__name__}.")
                if info.ispkg}
    return [name for name in all_workflow_modules() if name not in keep_sandboxed | packages]


def workflow_runner(sandboxed: bool = False) -> WorkflowRunner:
    if not sandboxed:
        return UnsandboxedWorkflowRunner()
    return SandboxedWorkflowRunner(
        restrictions=SandboxRestrictions.default.with_passthrough_modules(*passthrough_helpers()))
