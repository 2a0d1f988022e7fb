"""What a process starts ends when it dies, even by SIGKILL: `azmc dev`'s servers, emulator, codec server and
worker (cli/lifeline.py), and everything a test process starts, the Temporal SDK's own servers included
(tests/support/reaper.py). Each test starts the real thing, SIGKILLs it and waits for every process it had
started to be gone."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli.lifeline import ends_with_parent
from tests.e2e.stack import PYTHONPATH, ROOT, start_azmc_dev, wait_until


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, start time) of every live process (zombies are dead)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            found[int(stat.parent.name)] = (int(fields[1]), fields[19])
    return found


def _descendants(root: int) -> dict[int, str]:
    """Every process below `root` (its children, theirs...), with its start time, against pid reuse."""
    table, found, parents = _processes(), {}, [root]
    while parents:
        parent = parents.pop()
        for pid, (ppid, started) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = started
                parents.append(pid)
    return found


def _left(started: dict[int, str]) -> dict[int, str]:
    now = _processes()
    return {pid: Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:120]
            for pid, at in started.items() if pid in now and now[pid][1] == at}


def _killed_and_gone(process: subprocess.Popen[bytes], started: dict[int, str]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 120  # the worker may finish its activities first (SIGTERM)
    while _left(started) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _left(started) == {}, f"still running after their parent was killed: {_left(started)}"


def test_azmc_dev_killed_takes_its_stack_with_it(tmp_path: Path) -> None:
    dev = start_azmc_dev(tmp_path)[0].process
    assert dev is not None
    started: dict[int, str] = {}
    try:
        started = _descendants(dev.pid)
        assert len(started) >= 4, started  # the dev server, the emulator, the codec server, the worker
    finally:
        _killed_and_gone(dev, started)


def test_a_killed_test_process_leaves_nothing_running(tmp_path: Path) -> None:
    output, started = tmp_path / "output.txt", {}
    with output.open("w") as out:
        tests = subprocess.Popen([sys.executable, "-m", "tests.support.stack_process", str(tmp_path)], cwd=ROOT,
                                 env={**os.environ, **PYTHONPATH}, stdout=out, stderr=subprocess.STDOUT,
                                 preexec_fn=ends_with_parent())  # fmt: skip
    try:
        wait_until(lambda: "ready" in output.read_text() or tests.poll() is not None, 120, "the stacks to be up")
        assert tests.poll() is None, output.read_text()
        started = _descendants(tests.pid)
        commands = " ".join(_left(started).values())
        # The reaper, the session emulator, the stack's dev server, emulator, codec server and worker, and the
        # SDK's time-skipping server.
        assert "tests.support.reaper" in commands and "temporal-test-server" in commands, commands
        assert len(started) >= 7, commands
    finally:
        _killed_and_gone(tests, started)
