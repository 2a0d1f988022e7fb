"""free_port: the port a test or bench gives a server it starts a moment later, picked where the kernel hands out no
port of its own, so another process's connection cannot take it in between ("address already in use").
serve_on_free_port: the server started again on another port when a parallel test's server took it all the same."""

import socket
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.processes import EPHEMERAL_PORTS, Child, StackError, free_port, serve_on_free_port, tcp_open


def test_a_free_port_is_below_the_kernels_ephemeral_range_and_bindable() -> None:
    low = int(EPHEMERAL_PORTS.read_text().split()[0])
    for _ in range(20):
        port = free_port()
        assert 1024 <= port < low
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))  # free when given


def _server(log: Path, taken: list[int]) -> Callable[[int], Child]:
    """A child that serves HTTP on its port; the first one exits as a server does whose port another process bound
    first (its port goes to `taken`)."""

    def child_for(port: int) -> Child:
        if not taken:
            taken.append(port)
            script = "import sys; print('OSError: [Errno 98] address already in use', flush=True); sys.exit(1)"
            return Child("emulator", [sys.executable, "-c", script], log)
        return Child("emulator", [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)], log)

    return child_for


def test_a_server_whose_port_was_taken_between_pick_and_bind_starts_on_another(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    taken: list[int] = []
    child, port = serve_on_free_port(_server(tmp_path / "server.log", taken), tcp_open, timeout_s=30)
    try:
        assert port not in taken and tcp_open(port)
    finally:
        child.stop()
    assert f"emulator: port {taken[0]} was taken before it could bind it; starting it on another" in caplog.text


def test_a_server_that_fails_for_another_reason_is_not_started_again(tmp_path: Path) -> None:
    started: list[int] = []

    def broken(port: int) -> Child:
        started.append(port)
        return Child("emulator", [sys.executable, "-c", "raise SystemExit('no such subscription')"], tmp_path / "log")

    with pytest.raises(StackError, match="no such subscription"):
        serve_on_free_port(broken, tcp_open, timeout_s=30)
    assert len(started) == 1
