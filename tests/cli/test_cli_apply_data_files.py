"""`custom_data_file:` / `user_data_file:` in a spec file are read relative to the spec file."""

import json
from pathlib import Path

import pytest

from cli.spec_file import SpecError, load_spec

EXAMPLE = json.loads((Path(__file__).parents[2] / "examples" / "machine.json").read_text())


def test_data_files_are_read_relative_to_the_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "specs" / "boot").mkdir(parents=True)
    (tmp_path / "specs" / "boot" / "init.yaml").write_text("#cloud-config\nruncmd: [join]\n")
    (tmp_path / "specs" / "user.txt").write_text("labels: gpu\n")
    path = tmp_path / "specs" / "vm.yaml"
    path.write_text(json.dumps({**EXAMPLE, "custom_data_file": "boot/init.yaml", "user_data_file": "user.txt"}))
    monkeypatch.chdir(tmp_path)  # not the spec's folder
    spec = load_spec(Path("specs/vm.yaml"))
    assert spec.custom_data == "#cloud-config\nruncmd: [join]\n" and spec.user_data == "labels: gpu\n"


def test_missing_file_and_both_forms_are_one_line_errors(tmp_path: Path) -> None:
    path = tmp_path / "vm.json"
    path.write_text(json.dumps({**EXAMPLE, "custom_data_file": "nope.sh"}))
    with pytest.raises(SpecError, match=r"custom_data_file: cannot read .*nope\.sh.*No such file"):
        load_spec(path)
    path.write_text(json.dumps({**EXAMPLE, "custom_data_file": "x", "custom_data": "y"}))
    with pytest.raises(SpecError, match="give custom_data or custom_data_file, not both"):
        load_spec(path)


def test_too_large_file_names_the_field_and_limit(tmp_path: Path) -> None:
    (tmp_path / "big.sh").write_text("#!/bin/sh\n" + "x" * 70000)
    path = tmp_path / "vm.json"
    path.write_text(json.dumps({**EXAMPLE, "custom_data_file": "big.sh"}))
    with pytest.raises(SpecError, match=r"custom_data: custom_data is 70010 bytes .* at most 65535 bytes \(64 KB\)"):
        load_spec(path)
