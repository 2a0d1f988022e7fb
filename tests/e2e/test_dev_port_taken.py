"""The e2e stack's `azmc dev` (tests/e2e/stack.py, start_azmc_dev) comes up on other ports when one it picked was
taken before `azmc dev` could bind it, and says so in the log: the race a parallel test's server can win."""

import logging
import signal
import socket
from pathlib import Path

import pytest

from cli import processes
from cli.processes import free_port
from tests.e2e import stack


def test_azmc_dev_starts_again_on_other_ports_when_one_was_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        picks = iter([busy])
        monkeypatch.setattr(processes, "free_port", lambda: next(picks, None) or free_port())
        with caplog.at_level(logging.WARNING, logger="azmc.processes"):
            child, run = stack.start_azmc_dev(tmp_path)
        dev = child.process
        assert dev is not None
        try:
            assert dev.poll() is None and busy not in run.ports.values()
            assert "a port was taken before it could bind it" in caplog.text
            assert run.state_dir.name == ".azmc-2"  # the second attempt, in a state dir of its own
        finally:
            dev.send_signal(signal.SIGINT)
            dev.wait(timeout=60)
