"""The test session's reaper: whatever the session started ends with it, even when it is killed (SIGKILL by a
CI timeout), including the servers the Temporal SDK starts itself (WorkflowEnvironment), which no preexec
reaches.

`start_reaper()` (tests/conftest.py, once per test process) marks the process's environment with a session id,
which every process it starts inherits, and starts this module as a process in its own session that reads a
pipe only the test process holds. When the test process ends, normally or killed, the pipe closes: the reaper
sends SIGTERM to every process whose environment carries the mark, then SIGKILL to those still there.
Processes started with an environment of their own (without the mark) end through cli/lifeline.py instead.
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

MARK = "AZMC_TEST_SESSION"
ROOT = Path(__file__).resolve().parents[2]
_GRACE_S = 15.0  # SIGTERM first: a worker finishes its activities, a dev server closes its database


def start_reaper() -> subprocess.Popen[bytes] | None:
    """Mark this process's environment and start its reaper (Linux: it reads /proc); keep the returned handle,
    whose pipe is the lifeline."""
    if not sys.platform.startswith("linux"):
        return None
    os.environ[MARK] = f"{os.getpid()}-{uuid.uuid4().hex}"
    return subprocess.Popen([sys.executable, "-m", "tests.support.reaper", os.environ[MARK]], stdin=subprocess.PIPE,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)


def marked(session: str) -> list[int]:
    """Every other process whose environment carries this session's mark."""
    needle = f"{MARK}={session}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:  # gone, or another user's
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def reap(session: str) -> None:
    victims = marked(session)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + _GRACE_S
    while time.monotonic() < deadline and any(_alive(pid) for pid in victims):
        time.sleep(0.2)
    for pid in marked(session):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main() -> None:
    session = sys.argv[1]
    sys.stdin.buffer.read()  # returns when the test process has ended: nothing else holds the pipe's other end
    reap(session)


if __name__ == "__main__":
    main()
