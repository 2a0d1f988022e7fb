"""The install is reproducible and the image holds the worker and the CLI only (docs/testing.md, "Dependencies"):
the lock files pin what pyproject.toml asks, the image's lock holds no development tool, and the code the
Dockerfile copies into the image imports without the emulator, the dev server or Key Vault."""

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parents[1]
LOCKS = ROOT / "requirements"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
DEPENDENCIES = [Requirement(text) for text in PYPROJECT["dependencies"]]
EXTRAS = {name: [Requirement(text) for text in texts] for name, texts in PYPROJECT["optional-dependencies"].items()}
PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^ ;\\]+)", re.MULTILINE)


def pins(lock: str) -> dict[str, str]:
    """Distribution -> version of requirements/<lock>.txt."""
    return {canonicalize_name(name): version for name, version in PIN.findall((LOCKS / f"{lock}.txt").read_text())}


def wanted(*extras: str) -> list[Requirement]:
    """pyproject.toml's requirements with these extras, azmc's own extras unfolded."""
    found, todo = list(DEPENDENCIES), list(extras)
    while todo:
        for requirement in EXTRAS[todo.pop()]:
            if requirement.name == "azmc":
                todo.extend(requirement.extras)
            else:
                found.append(requirement)
    return found


@pytest.mark.parametrize(("lock", "extras"), [
    ("test", ("test",)), ("image", ("tracing",)), ("image-keyvault", ("tracing", "keyvault")),
])
def test_each_lock_pins_what_pyproject_asks(lock: str, extras: tuple[str, ...]) -> None:
    """pyproject.toml changed without `make lock` fails here: what a fresh `make install` would miss or refuse."""
    pinned = pins(lock)
    stale = [f"{r} (locked: {pinned.get(canonicalize_name(r.name), 'missing')})" for r in wanted(*extras)
             if not r.specifier.contains(pinned.get(canonicalize_name(r.name), "0"), prereleases=True)]
    assert stale == [], f"requirements/{lock}.txt is stale: run `make lock`"


def test_the_image_runs_what_make_test_tested() -> None:
    tested = pins("test")
    for lock in ("image", "image-keyvault", "build", "uv"):
        assert {name: tested.get(name) for name in pins(lock)} == pins(lock), f"{lock}.txt: run `make lock`"


def test_the_image_lock_holds_no_development_tool() -> None:
    image = pins("image")
    for extra in ("dev", "keyvault", "test"):
        left = {canonicalize_name(r.name) for r in EXTRAS[extra] if r.name != "azmc"} & set(image)
        assert left == set(), f"the image would install the {extra} extra's {sorted(left)}"
    assert "azure-keyvault-secrets" in pins("image-keyvault")


def test_every_lock_checks_hashes() -> None:
    for lock in sorted(LOCKS.glob("*.txt")):
        entries = re.split(r"\n(?=[A-Za-z0-9])", lock.read_text().split("\n", 2)[2].strip())
        assert entries and all("--hash=sha256:" in entry for entry in entries), lock.name


def dockerfile_copies(stage: str) -> list[str]:
    """The sources the Dockerfile's `stage` copies from the build context (not from another stage)."""
    copies, current = [], None
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("FROM "):
            current = line.split()[-1]
        elif line.startswith("COPY ") and current == stage and "--from" not in line:
            copies.extend(line.split()[1:-1])
    return copies


def modules_beyond(lock: str) -> list[str]:
    """The import names of the installed distributions that requirements/<lock>.txt leaves out: a top-level
    package or module no locked distribution shares, else the sub-package under a shared one (`azure.keyvault`)."""
    kept = set(pins(lock)) | {"azmc"}
    owners: dict[str, set[str]] = {}
    for dist in importlib.metadata.distributions():
        for file in dist.files or ():
            folders, leaf = file.parts[:-1], file.parts[-1]
            names = [folders[0]] if folders else [leaf.removesuffix(".py")] if leaf.endswith(".py") else []
            names += [f"{folders[0]}.{folders[1]}"] if len(folders) > 1 else []
            for name in names:
                if all(part.isidentifier() and not part.startswith("__") for part in name.split(".")):
                    owners.setdefault(name, set()).add(canonicalize_name(dist.metadata["Name"]))
    left = {name for name, dists in owners.items() if not dists & kept}
    return sorted(name for name in left if name.rpartition(".")[0] not in left)


def test_the_images_code_imports_without_what_it_leaves_out(tmp_path: Path) -> None:
    """Every module of the image, imported where the emulator's backends, Key Vault and the test tools cannot
    be: a module that needs one at import would stop the worker. `azmc emulator` there says what is missing."""
    for source in dockerfile_copies("source"):
        if source.startswith("requirements"):
            continue
        target = tmp_path / source
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (ROOT / source).is_dir() else shutil.copy)(ROOT / source, target)
    assert not (tmp_path / "emulator" / "app.py").exists(), "the image would carry the emulator"
    blocked = modules_beyond("image")
    assert "azure.keyvault" in blocked and "pytest" in blocked, blocked
    script = f"""
import importlib, pkgutil, sys
sys.path.insert(0, {str(tmp_path)!r})
# Not the checkout's packages through the editable install's finder: only what the image holds.
sys.meta_path[:] = [f for f in sys.meta_path if not f.__module__.startswith("__editable__")]
for name in {blocked!r}:
    sys.modules[name] = None
for package in ("models", "workflows", "activities", "workers", "cli", "codec", "emulator"):
    root = importlib.import_module(package)
    assert root.__file__.startswith({str(tmp_path)!r}), root.__file__
    for module in pkgutil.walk_packages(root.__path__, package + "."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
from typer.testing import CliRunner
from cli.commands import app
done = CliRunner().invoke(app, ["emulator", "--port", "8910"])
assert done.exit_code == 1 and "not in this installation" in done.output, done.output
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
