"""A build id changes whenever the workflow code does, and only then (workers/deployment.py)."""

import re
import shutil
from pathlib import Path

from workers.deployment import build_id, code_digest, workflow_packages


def copy_packages(into: Path) -> list[Path]:
    copies = []
    for package in workflow_packages():
        shutil.copytree(package, into / package.name, ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(into / package.name)
    return copies


def test_the_digest_follows_every_workflow_and_model_file(tmp_path: Path) -> None:
    workflows, models = copy_packages(tmp_path)
    before = code_digest(workflows, models)
    assert code_digest(workflows, models) == before  # stable
    (tmp_path / "elsewhere.py").write_text("x = 1\n")  # outside the packages: not workflow code
    assert code_digest(workflows, models) == before
    machine = workflows / "machine" / "workflow.py"
    machine.write_text(machine.read_text() + "\n# one comment more\n")
    changed_workflow = code_digest(workflows, models)
    assert changed_workflow != before
    spec = models / "spec.py"
    spec.write_text(spec.read_text() + "\n")
    assert code_digest(workflows, models) not in (before, changed_workflow)
    (workflows / "machine" / "workflow.py").rename(workflows / "machine" / "renamed.py")
    assert code_digest(workflows, models) != before  # a moved file is a change too


def test_the_build_id_names_the_package_version_and_the_code() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+[^-]*-[0-9a-f]{12}", build_id()), build_id()
    assert build_id().endswith(code_digest(*workflow_packages())[:12])
