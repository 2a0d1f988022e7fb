"""A child of the stack that dies while starting is reported in one line that carries its own last words."""

import sys
from pathlib import Path

import pytest

from cli.processes import Child, StackError


def test_a_child_exiting_while_starting_names_its_code_and_last_log_line(tmp_path: Path) -> None:
    log = tmp_path / "child.log"
    script = "import sys; print('starting'); print('bind: address already in use', flush=True); sys.exit(2)"
    child = Child("temporal dev server", [sys.executable, "-c", script], log)
    child.start()
    try:
        with pytest.raises(StackError) as failed:
            child.wait_ready(lambda: False, timeout_s=30)
    finally:
        child.stop()
    assert str(failed.value) == (f"temporal dev server exited with code 2: bind: address already in use; see {log}")
