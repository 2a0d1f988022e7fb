"""The packages keep the layering of layers.toml: every import (relative, type-only and function-local ones
included) is one the table allows; read as Python runs imports (a module's import runs its packages' `__init__`
first, so every module depends on its packages), no import circle exists and no package's `__init__` imports
anything that imports it back; no flow's folder imports another flow's folder; and docs/architecture.md shows the
table. Read from the source with `ast`: no module is run."""

import ast
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ROOT / "layers.toml"
ANY = "*"


@dataclass(frozen=True)
class Layer:
    package: str
    job: str
    may_import: tuple[str, ...]
    flows: bool = False
    shared: tuple[str, ...] = ()

    def allows(self, target: str) -> bool:
        """`target` (a module of another package) is allowed, or is a package Python runs to reach one that is."""
        if ANY in self.may_import or target.split(".")[0] in self.may_import:
            return True
        return any(entry == target or entry.startswith(f"{target}.") for entry in self.may_import if "." in entry)


def read_layers(path: Path = LAYERS) -> dict[str, Layer]:
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    return {package: Layer(package, rule["job"], tuple(rule["may_import"]), rule.get("flows", False),
                           tuple(rule.get("shared", ()))) for package, rule in table.items()}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_of(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    return {module_name(path, root): path for package in packages for path in sorted((root / package).rglob("*.py"))}


def parents(module: str) -> list[str]:
    """The packages Python runs before `module`: `a.b.c` -> a, a.b."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a `from` import names, a relative one resolved against `module`."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def imports_of(path: Path, module: str, known: set[str]) -> set[str]:
    """The modules of `known` that importing `path` runs by its own statements, packages on the way included."""
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node, module, path.name == "__init__.py")
            named.add(source)
            named.update(f"{source}.{alias.name}" for alias in node.names)  # `from a import b`, b a module
    return {name for target in named for name in (*parents(target), target) if name in known} - {module}


def import_statements(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Each module -> the modules its own import statements run."""
    modules = modules_of(root, packages)
    known = set(modules)
    return {name: imports_of(path, name, known) for name, path in modules.items()}


def as_python_runs(statements: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each module also depends on its packages, which Python runs first."""
    return {module: targets | set(parents(module)) for module, targets in statements.items()}


def reached(graph: dict[str, set[str]], start: Iterable[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph.get(module, ()))
    return seen


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


def inits_imported_back(statements: dict[str, set[str]], root: Path) -> list[str]:
    """Packages whose `__init__` runs, directly or not, a module that needs the package first (any module in it)."""
    graph = as_python_runs(statements)
    found = []
    for package in sorted(name for name in statements if (root / name.replace(".", "/") / "__init__.py").is_file()):
        inside = sorted(module for module in reached(graph, statements[package]) if module.startswith(f"{package}."))
        if inside:
            found.append(f"{package}/__init__.py runs {', '.join(inside)}, which import(s) {package} back")
    return found


def forbidden_imports(statements: dict[str, set[str]], layers: dict[str, Layer]) -> list[str]:
    found = []
    for module, targets in sorted(statements.items()):
        layer = layers[module.split(".")[0]]
        found += [f"{module} imports {target}" for target in sorted(targets)
                  if target.split(".")[0] != layer.package and not layer.allows(target)]
    return found


def narrow_entries_reaching_more(statements: dict[str, set[str]], layers: dict[str, Layer]) -> list[str]:
    """A module allowed alone (`emulator.seed`) must bring only what the importer may import anyway."""
    graph = as_python_runs(statements)
    found = []
    for layer in layers.values():
        for entry in (entry for entry in layer.may_import if "." in entry):
            extra = sorted(module for module in reached(graph, [entry]) - {entry, *parents(entry)}
                           if module.split(".")[0] != layer.package and not layer.allows(module))
            found += [f"{layer.package} may import {entry}, which runs {module}" for module in extra]
    return found


def flow_of(module: str, layers: dict[str, Layer], root: Path) -> tuple[str, str] | None:
    """(package, flow) for a module inside a flow's folder (`workflows.pool.plan` -> ("workflows", "pool"))."""
    parts = module.split(".")
    layer = layers.get(parts[0])
    if layer and layer.flows and len(parts) >= 2 and parts[1] not in layer.shared \
            and (root / parts[0] / parts[1]).is_dir():
        return parts[0], parts[1]
    return None


def cross_flow_imports(statements: dict[str, set[str]], layers: dict[str, Layer], root: Path) -> list[str]:
    crossings = []
    for module, imported in sorted(statements.items()):
        home = flow_of(module, layers, root)
        for target in sorted(imported):
            there = flow_of(target, layers, root)
            if home and there and home[0] == there[0] and home != there:
                crossings.append(f"{module} imports {target}")
    return crossings


def unlisted_packages(root: Path, layers: dict[str, Layer]) -> list[str]:
    """Python packages at the top of the repository that the table does not list, and listed ones that are gone."""
    found = {path.parent.name for path in root.glob("*/__init__.py")}
    return sorted(found ^ set(layers))


def markdown_table(layers: dict[str, Layer]) -> str:
    rows = ["| package | job | may import, besides its own modules |", "|---|---|---|"]
    for layer in layers.values():
        job = layer.job
        if layer.flows:
            shared = "".join(f", `{layer.package}/{folder}/` shared" for folder in layer.shared)
            job += f"; a folder per flow{shared}"
        allowed = ("anything" if ANY in layer.may_import else
                   ", ".join(f"`{entry}`" for entry in layer.may_import) or "nothing")
        rows.append(f"| `{layer.package}/` | {job} | {allowed} |")
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def layers() -> dict[str, Layer]:
    return read_layers()


@pytest.fixture(scope="module")
def statements(layers: dict[str, Layer]) -> dict[str, set[str]]:
    return import_statements(ROOT, layers)


def test_the_table_lists_every_package(layers: dict[str, Layer]):
    assert unlisted_packages(ROOT, layers) == []
    entries = {entry.split(".")[0] for layer in layers.values() for entry in layer.may_import if entry != ANY}
    assert entries <= set(layers)


def test_every_import_is_one_the_table_allows(statements: dict[str, set[str]], layers: dict[str, Layer]):
    assert forbidden_imports(statements, layers) == []


def test_a_module_allowed_alone_brings_nothing_else(statements: dict[str, set[str]], layers: dict[str, Layer]):
    assert narrow_entries_reaching_more(statements, layers) == []


def test_no_import_circle_as_python_runs_imports(statements: dict[str, set[str]]):
    assert circles(as_python_runs(statements)) == []


def test_no_package_init_imports_what_imports_it_back(statements: dict[str, set[str]]):
    assert inits_imported_back(statements, ROOT) == []


def test_no_flow_folder_imports_another_flows_folder(statements: dict[str, set[str]], layers: dict[str, Layer]):
    assert cross_flow_imports(statements, layers, ROOT) == []


def test_the_flows_have_folders():
    for package, flows in {"workflows": ("machine", "pool", "offerings", "sweep"),
                           "cli": ("machine", "pool", "dev", "demo")}.items():
        for flow in flows:
            assert (ROOT / package / flow / "__init__.py").is_file(), f"{package}/{flow}/ is missing"


def test_the_architecture_page_shows_the_table(layers: dict[str, Layer]):
    table = markdown_table(layers)
    assert table in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"), \
        f"docs/architecture.md must show layers.toml as this table:\n{table}"


def _tree(root: Path, files: dict[str, str], layers: str) -> dict[str, Layer]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "layers.toml").write_text(layers)
    return read_layers(root / "layers.toml")


_LAYERS = """
[models]
job = "types"
may_import = []
[workflows]
job = "workflows"
may_import = ["models"]
flows = true
[emulator]
job = "emulator"
may_import = []
[workers]
job = "worker"
may_import = ["workflows", "emulator.seed"]
[bench]
job = "benchmarks"
may_import = ["*"]
"""
_GOOD = {
    "models/__init__.py": "",
    "models/names.py": "",
    "workflows/__init__.py": '"""Nothing imported."""\n',
    "workflows/shared.py": "from models import names\n",
    "workflows/pool/__init__.py": "",
    "workflows/pool/plan.py": "from workflows import shared\nfrom . import zones\n",
    "workflows/pool/zones.py": "from ..shared import X\n",
    "workflows/machine/__init__.py": "",
    "workflows/machine/state.py": "import workflows.shared\n",
    "emulator/__init__.py": "",
    "emulator/seed.py": "",
    "emulator/backend.py": "from emulator import seed\n",
    "workers/__init__.py": "",
    "workers/settings.py": "from emulator.seed import SEED\nimport workflows.pool.plan\n",
    "bench/__init__.py": "",
    "bench/run.py": "import emulator.backend\nimport workers.settings\n",
}


def _checks(root: Path, layers: dict[str, Layer]) -> dict[str, list]:
    statements = import_statements(root, layers)
    return {"unlisted": unlisted_packages(root, layers), "forbidden": forbidden_imports(statements, layers),
            "narrow": narrow_entries_reaching_more(statements, layers),
            "circles": circles(as_python_runs(statements)), "inits": inits_imported_back(statements, root),
            "crossings": cross_flow_imports(statements, layers, root)}


def test_a_good_layout_passes_every_check(tmp_path: Path):
    """The negative controls below break one rule each of this layout, which passes."""
    layers = _tree(tmp_path, _GOOD, _LAYERS)
    assert _checks(tmp_path, layers) == {"unlisted": [], "forbidden": [], "narrow": [], "circles": [], "inits": [],
                                         "crossings": []}


@pytest.mark.parametrize(("change", "check", "expected"), [
    ({"models/names.py": "from workflows.shared import X\n"}, "forbidden",
     ["models.names imports workflows", "models.names imports workflows.shared"]),
    ({"workflows/pool/zones.py": "from ...emulator import backend\n"}, "forbidden",
     ["workflows.pool.zones imports emulator", "workflows.pool.zones imports emulator.backend"]),
    ({"workers/settings.py": "import emulator.backend\n"}, "forbidden", ["workers.settings imports emulator.backend"]),
    ({"models/names.py": "def late():\n    import bench.run\n"}, "forbidden",
     ["models.names imports bench", "models.names imports bench.run"]),
    ({"emulator/seed.py": "from emulator.backend import x\n"}, "narrow",
     ["workers may import emulator.seed, which runs emulator.backend"]),
    ({"workflows/pool/zones.py": "from ..machine.state import X\n"}, "crossings",
     ["workflows.pool.zones imports workflows.machine", "workflows.pool.zones imports workflows.machine.state"]),
    ({"workflows/__init__.py": "from workflows.pool.plan import plan\n"}, "inits",
     ["workflows/__init__.py runs workflows.pool, workflows.pool.plan, workflows.pool.zones, workflows.shared, "
      "which import(s) workflows back"]),
    ({"workflows/pool/__init__.py": "from .plan import plan\n"}, "circles",
     [["workflows.pool", "workflows.pool.plan", "workflows.pool.zones"]]),
    ({"workflows/shared.py": "if TYPE_CHECKING:\n    from workflows.machine import state\n"}, "circles",
     [["workflows.machine.state", "workflows.shared"]]),
    ({"codec/__init__.py": ""}, "unlisted", ["codec"]),
])
def test_each_check_fails_on_its_rule_broken(tmp_path: Path, change: dict[str, str], check: str, expected: list):
    layers = _tree(tmp_path, {**_GOOD, **change}, _LAYERS)
    assert _checks(tmp_path, layers)[check] == expected
