"""Children that end with their parent: a stack's servers, emulator and worker never outlive the process that
started them, even one killed with SIGKILL (a CI timeout, `kill -9` of `azmc dev`).

Linux only (prctl PR_SET_PDEATHSIG): the kernel signals the child when the thread that forked it ends, so the
lifeline is tied only to a fork from the main thread, which ends with the process; elsewhere it is a no-op.
"""

import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def ends_with_parent(sig: signal.Signals = signal.SIGTERM) -> Callable[[], None] | None:
    """A `preexec_fn` for subprocess.Popen: the child gets `sig` when this process dies (SIGTERM: it may stop
    cleanly, as on Ctrl-C). None where that cannot be promised (not Linux, not the main thread)."""
    prctl = _PRCTL
    if prctl is None or threading.current_thread() is not threading.main_thread():
        return None
    parent = os.getpid()

    def preexec() -> None:  # runs in the child between fork and exec: no imports, no locks
        prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the lifeline was tied: nobody would signal us
            os._exit(1)

    return preexec
