"""Workflow code is deterministic by construction: the modules a workflow runs (workflows/ and the models/ it
builds on) import only what cannot read the world, and call no clock but `workflow.now()`.

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
    "__future__", "annotated_types", "asyncio", "base64", "collections", "copy", "dataclasses", "datetime",
    "enum", "functools", "hashlib", "itertools", "json", "math", "pydantic", "pydantic_core", "re", "types",
    "typing", "models", "workflows",
})
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


def _importable(module: str) -> bool:
    return module in TEMPORAL_MODULES or module.split(".")[0] in PURE_MODULES


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


def test_the_check_lets_workflow_code_be():
    allowed = "from temporalio import workflow\nfrom datetime import timedelta\nx = workflow.now() + timedelta(1)"
    assert violations(allowed) == []
