"""Workflow code is deterministic by construction: the modules a workflow runs (workflows/ and the models/ it
builds on) import only what cannot read the world, call no clock but `workflow.now()`, and decide nothing by
comparing a clock reading: a deadline is a timer (workflows/deadlines.py), whose firing is in history, because a
worker's clock in the task after a timed-out one can differ from its replay's.

This is what the sandbox would catch at run time, checked on the source instead: the worker and the scenario
tests run workflows unsandboxed (workers/sandbox.py), and the recorded histories' replays catch only the paths
they recorded. Read with `ast`: no module is run.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW_CODE = ("workflows", "models")

# Top-level modules workflow code may import: the standard library's pure parts, pydantic, azmc's own.
PURE_MODULES = frozenset({
    "__future__", "annotated_types", "asyncio", "base64", "collections", "contextlib", "copy", "dataclasses",
    "datetime", "enum", "functools", "hashlib", "itertools", "json", "math", "pydantic", "pydantic_core", "re", "types",
    "typing", "models", "workflows",
})
# OpenTelemetry's API (workflows/traces.py): spans change no command; the SDK's replay-safe provider (workers/
# tracing.py) takes their ids from the workflow's random and ends none while replaying.
TELEMETRY_MODULES = frozenset({"opentelemetry", "opentelemetry.trace", "opentelemetry.context"})
# Of temporalio, only what a workflow may touch: its API, its exceptions and the common types.
TEMPORAL_MODULES = frozenset({"temporalio", "temporalio.workflow", "temporalio.exceptions", "temporalio.common"})
# Calls that read the host's clock or loop, or differ between processes (str hashes are salted per process).
CLOCK_METHODS = frozenset({"now", "utcnow", "today"})
IMPURE_CALLS = frozenset({"hash", "id", "get_event_loop", "get_running_loop"})


def violations(source: str, filename: str = "<source>") -> list[str]:
    """What in `source` could make a replay differ from the run it replays, one line each."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [f"{where} imports {a.name}" for a in node.names if not _importable(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from temporalio import client` imports a module of temporalio's: each name is checked as one.
            names = [f"{node.module}.{a.name}" for a in node.names] if node.module == "temporalio" else [node.module]
            found += [f"{where} imports {name}" for name in names if not _importable(name)]
        elif isinstance(node, ast.Call):
            function = node.func
            if isinstance(function, ast.Attribute) and function.attr in CLOCK_METHODS and not _is_workflow(function):
                found.append(f"{where} reads the host's clock ({ast.unparse(function)})")
            name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
            if name in IMPURE_CALLS:
                found.append(f"{where} calls {name}(), which differs between processes")
    return found


def clock_comparisons(source: str, filename: str = "<source>") -> list[str]:
    """Comparisons with a clock reading: `workflow.now()` itself, a name assigned from it in the same function,
    or a function's `now` parameter (a pure function handed the time)."""
    found = []
    for function in ast.walk(ast.parse(source, filename=filename)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        clocked = {a.arg for a in function.args.args + function.args.kwonlyargs if a.arg == "now"}
        for node in ast.walk(function):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                clocked |= _names_set_from_the_clock(node)
        for node in ast.walk(function):
            if isinstance(node, ast.Compare) and any(
                    _reads_clock(part) or (isinstance(part, ast.Name) and part.id in clocked)
                    for operand in (node.left, *node.comparators) for part in ast.walk(operand)):
                found.append(f"{filename}:{node.lineno} decides by the clock: {ast.unparse(node)}")
    return sorted(set(found))


def _reads_clock(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "now" \
        and _is_workflow(node.func)


def _names_set_from_the_clock(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    pairs = []
    for target in targets:  # `now, memory = workflow.now(), x` marks `now` only
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
            pairs += zip(target.elts, node.value.elts, strict=False)
        else:
            pairs.append((target, node.value))
    return {target.id for target, value in pairs
            if isinstance(target, ast.Name) and any(_reads_clock(part) for part in ast.walk(value))}


def _importable(module: str) -> bool:
    return module in TEMPORAL_MODULES or module in TELEMETRY_MODULES or module.split(".")[0] in PURE_MODULES


def _is_workflow(function: ast.Attribute) -> bool:
    return isinstance(function.value, ast.Name) and function.value.id == "workflow"


def _workflow_code() -> list[Path]:
    return sorted(path for package in WORKFLOW_CODE for path in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", _workflow_code(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_workflow_code_reads_nothing_but_workflow_now(path: Path):
    assert violations(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()) == []


@pytest.mark.parametrize("source", [
    "import time", "import random", "from uuid import uuid4", "import os.path", "from temporalio import client",
    "from temporalio.client import Client", "from activities.driver import AzureDriver",
    "x = datetime.now()", "x = datetime.datetime.utcnow()", "x = date.today()", "x = hash(name)",
    "loop = asyncio.get_running_loop()",
])
def test_the_check_finds_what_would_break_a_replay(source: str):
    assert violations(source) != []


# Where a clock comparison is known and why. The offerings memory: its comparisons (a refusal or probe still in
# force, a quota or resource SKUs reading due or being taken) decide what it answers and shows, never a command;
# its only command is continue-as-new.
KNOWN_CLOCK_DECISIONS = {
    "workflows/offerings/workflow.py": "answers only",
    "workflows/offerings/quota.py": "answers only",
    "workflows/offerings/skus.py": "answers only",
}


@pytest.mark.parametrize("path", sorted((ROOT / "workflows").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_workflows_decide_by_timers_not_by_the_clock(path: Path):
    name = path.relative_to(ROOT).as_posix()
    found = clock_comparisons(path.read_text(encoding="utf-8"), name)
    assert (found != []) == (name in KNOWN_CLOCK_DECISIONS), found or f"{name} no longer compares the clock"


@pytest.mark.parametrize("source", [
    "def f():\n    if workflow.now() >= deadline:\n        pass",
    "def f():\n    now = workflow.now()\n    left = deadline - now\n    return now < deadline",
    "def f(state):\n    started = workflow.now()\n    return started + timeout > state.at",
    "def f(now, since):\n    return now - since >= timedelta(1)",
    "async def f():\n    now, x = workflow.now(), 1\n    while now < x:\n        pass",
])
def test_the_clock_check_finds_decisions_by_the_clock(source: str):
    assert clock_comparisons(source) != []


def test_the_clock_check_lets_durations_and_other_comparisons_be():
    allowed = ("def f(state):\n    now, count = workflow.now(), 0\n    delay = max(state.at - now, SHORTEST)\n"
               "    stamp = workflow.now()\n    return count > 1 and delay is not None and state.at is None")
    assert clock_comparisons(allowed) == []


def test_the_check_lets_workflow_code_be():
    allowed = "from temporalio import workflow\nfrom datetime import timedelta\nx = workflow.now() + timedelta(1)"
    assert violations(allowed) == []
