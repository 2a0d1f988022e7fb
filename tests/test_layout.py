"""The packages' import graph keeps the layout docs/architecture.md describes: no import circle between
modules, each flow's folder (workflows/<flow>/, cli/<flow>/) imports no other flow's folder, and workflow code
never imports activities/ (nor anything that talks to Azure or runs processes). Read from the source with
`ast`: no module is run."""

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("models", "workflows", "activities", "workers", "cli", "emulator", "codec")
# Packages whose sub-folders are flows: what all flows share sits at the top of the package.
FLOW_PACKAGES = ("workflows", "cli")
# Workflow code is deterministic: it reaches Azure only through activities, by registered name.
WORKFLOWS_MAY_NOT_IMPORT = ("activities", "cli", "workers", "emulator", "codec")


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_of(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    return {module_name(path, root): path for package in packages for path in sorted((root / package).rglob("*.py"))}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that `path` imports, type-only and function-local imports included."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in known:
                    found.add(submodule)
                elif node.module in known:
                    found.add(node.module)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    modules = modules_of(root, packages)
    known = set(modules)
    return {name: imports_of(path, known) - {name} for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def flow_of(module: str, root: Path) -> tuple[str, str] | None:
    """(package, flow) for a module inside a flow's folder (`workflows.pool.plan` -> ("workflows", "pool"))."""
    parts = module.split(".")
    if parts[0] in FLOW_PACKAGES and len(parts) >= 2 and (root / parts[0] / parts[1]).is_dir():
        return parts[0], parts[1]
    return None


def cross_flow_imports(graph: dict[str, set[str]], root: Path) -> list[str]:
    crossings = []
    for module, imported in sorted(graph.items()):
        home = flow_of(module, root)
        for target in sorted(imported):
            there = flow_of(target, root)
            if home and there and home[0] == there[0] and home != there:
                crossings.append(f"{module} imports {target}")
    return crossings


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(ROOT, PACKAGES)


def test_no_import_circle_between_modules(graph: dict[str, set[str]]):
    assert circles(graph) == []


def test_no_flow_folder_imports_another_flows_folder(graph: dict[str, set[str]]):
    assert cross_flow_imports(graph, ROOT) == []


def test_workflow_code_never_imports_activities(graph: dict[str, set[str]]):
    reached = sorted(f"{module} imports {target}" for module, imported in graph.items()
                     if module.split(".")[0] == "workflows" for target in imported
                     if target.split(".")[0] in WORKFLOWS_MAY_NOT_IMPORT)
    assert reached == []


def test_the_flows_have_folders():
    for package, flows in {"workflows": ("machine", "pool", "offerings", "sweep"),
                           "cli": ("machine", "pool", "dev", "demo")}.items():
        for flow in flows:
            assert (ROOT / package / flow / "__init__.py").is_file(), f"{package}/{flow}/ is missing"


def test_the_checks_catch_a_circle_and_a_crossing(tmp_path: Path):
    """The checks above would fail on a bad layout, so their passing means something."""
    files = {
        "workflows/__init__.py": "",
        "workflows/shared.py": "import workflows.pool.plan\n",
        "workflows/pool/__init__.py": "",
        "workflows/pool/plan.py": "if TYPE_CHECKING:\n    from workflows import shared\n",
        "workflows/machine/__init__.py": "",
        "workflows/machine/state.py": "from workflows.pool.plan import something\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path, ["workflows"])
    assert circles(graph) == [["workflows.pool.plan", "workflows.shared"]]
    assert cross_flow_imports(graph, tmp_path) == ["workflows.machine.state imports workflows.pool.plan"]
