"""The embedded stack behind `azmc dev` and `azmc demo`: Temporal dev server, the emulator and a worker.

Each runs as a child process in its own session, so Ctrl-C reaches only this supervisor, which then
stops them in reverse order (worker first, so it can finish in-flight activities).
"""

import asyncio
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cli.processes import Child, StackError, http_ok, require_free_ports, serve_on_free_port, tcp_open, temporal_binary
from cli.stack_keys import codec_env
from models.search_attributes import ALL_KEYS, type_name
from workers.settings import METRICS_PORT
from workers.tracing import TRACE_FILE_ENV

log = logging.getLogger("azmc.dev")

SEARCH_ATTRIBUTES = tuple(key.name for key in ALL_KEYS)
_PROJECT_ROOT = Path(__file__).resolve().parent.parent
_MAX_WORKER_RESTARTS = 5
DEV_DEPLOYMENT = "azmc"  # the worker's default AZMC_DEPLOYMENT_NAME
WORKER_CURRENT_S = 90.0
DEV_NAMESPACE = "default"  # the one namespace `temporal server start-dev` makes


@dataclass(frozen=True)
class StackConfig:
    temporal_port: int = 7233
    ui_port: int = 8233
    emulator_port: int = 8910
    metrics_port: int = METRICS_PORT  # 0 = off
    state_dir: Path = Path(".azmc")
    time_scale: float = 0.1
    latency_profile: str = "realistic"
    # Azure seconds a guest boots after every (re)start, before its VM agent says Ready (scaled by time_scale);
    # 0 keeps `make demo` quick: every startup's first read finds the agent Ready.
    boot_seconds: float = 0.0
    worker: bool = True
    worker_to_console: bool = False
    codec_port: int = 8234  # `azmc codec-server`, which the UI decodes payloads through

    @property
    def temporal_address(self) -> str:
        return f"127.0.0.1:{self.temporal_port}"

    @property
    def emulator_url(self) -> str:
        return f"http://127.0.0.1:{self.emulator_port}"

    @property
    def ui_url(self) -> str:
        return f"http://localhost:{self.ui_port}"

    @property
    def codec_url(self) -> str:
        return f"http://127.0.0.1:{self.codec_port}"


def temporal_argv(config: StackConfig) -> list[str]:
    argv = [
        temporal_binary(), "server", "start-dev",
        "--ip", "127.0.0.1",
        "--port", str(config.temporal_port),
        "--ui-port", str(config.ui_port),
        "--db-filename", str(config.state_dir / "temporal.db"),
        "--log-level", "warn",
        "--ui-codec-endpoint", config.codec_url,
    ]  # fmt: skip
    return argv + search_attribute_flags() + ONE_PARTITION_FLAGS


def search_attribute_flags() -> list[str]:
    """`temporal server start-dev` flags registering the workflows' search attributes with their types."""
    return [flag for key in ALL_KEYS for flag in ("--search-attribute", f"{key.name}={type_name(key)}")]


# A task queue's rate limit is split among its partitions (4 by default), and a partition no worker happens to poll
# holds its share back: measured on a dev server, 1.5 activities a second of 2 allowed with 4 partitions, 2.07 with
# one. azmc's queues are far below one partition's throughput; deploy/temporal-dynamic-config.yaml does the same.
ONE_PARTITION_FLAGS = [flag for key in ("matching.numTaskqueueReadPartitions", "matching.numTaskqueueWritePartitions")
                       for flag in ("--dynamic-config-value", f"{key}=1")]


def emulator_argv(config: StackConfig) -> list[str]:
    return [
        sys.executable, "-m", "emulator",
        "--host", "127.0.0.1",
        "--port", str(config.emulator_port),
        "--seed",
        "--time-scale", str(config.time_scale),
        "--latency-profile", config.latency_profile,
        "--boot-seconds", str(config.boot_seconds),
    ]  # fmt: skip


def emulator_on_free_port(log: Path, flags: tuple[str, ...], name: str = "emulator") -> tuple[Child, int]:
    """The emulator (seeded, on loopback) started with `flags` on a free port and serving; its port. What the
    benches and the tests start; `azmc dev` starts it on the port its config names (emulator_argv)."""
    return serve_on_free_port(
        lambda port: Child(name, [sys.executable, "-m", "emulator", "--host", "127.0.0.1", "--port", str(port),
                                  "--seed", *flags], log, env={"PYTHONPATH": str(_PROJECT_ROOT)}),
        lambda port: http_ok(f"http://127.0.0.1:{port}/_emulator/health"), timeout_s=30)


def worker_env(config: StackConfig) -> dict[str, str]:
    return {
        "AZMC_TEMPORAL_ADDRESS": config.temporal_address,
        "AZMC_TEMPORAL_NAMESPACE": DEV_NAMESPACE,
        "AZMC_AZURE_ENDPOINT": config.emulator_url,
        "AZMC_METRICS_PORT": str(config.metrics_port),
        "AZMC_ENSURE_SCHEDULE": "true",  # the fleet sweep runs on the dev stack too (AZMC_SWEEP_* apply)
        # The working tree's code takes new work at each start (docs/upgrades.md, "azmc dev").
        "AZMC_MAKE_CURRENT": "always",
        # Its spans, for `azmc trace` (workers/tracing.py): no collector needed to look.
        TRACE_FILE_ENV: str(trace_file(config)),
        "PYTHONPATH": str(_PROJECT_ROOT),
        **codec_env(config.state_dir),
    }


def trace_file(config: StackConfig) -> Path:
    return (config.state_dir / "traces.jsonl").resolve()


def codec_server_argv(config: StackConfig) -> list[str]:
    return [sys.executable, "-m", "cli", "codec-server", "--port", str(config.codec_port),
            "--ui-origin", config.ui_url, "--ui-origin", f"http://127.0.0.1:{config.ui_port}"]


@dataclass
class DevStack:
    config: StackConfig
    children: list[Child] = field(default_factory=list)
    worker_restarts: int = 0

    def start(self) -> None:
        """Start everything, or nothing: a failure stops what was already started."""
        config = self.config
        ports = {"--temporal-port": config.temporal_port, "--ui-port": config.ui_port,
                 "--emulator-port": config.emulator_port, "--codec-port": config.codec_port}  # fmt: skip
        if config.worker:
            ports["--metrics-port"] = config.metrics_port
        require_free_ports(ports)
        config.state_dir.mkdir(parents=True, exist_ok=True)
        try:
            temporal = self._launch(Child("temporal dev server", temporal_argv(config), self._log("temporal")))
            emulator = self._launch(Child("emulator", emulator_argv(config), self._log("emulator"),
                                          env={"PYTHONPATH": str(_PROJECT_ROOT)}))  # fmt: skip
            codec = self._launch(Child("codec server", codec_server_argv(config), self._log("codec-server"),
                                       env={"PYTHONPATH": str(_PROJECT_ROOT), **codec_env(config.state_dir)}))
            temporal.wait_ready(lambda: tcp_open(config.temporal_port), timeout_s=60)
            codec.wait_ready(lambda: tcp_open(config.codec_port), timeout_s=30)
            emulator.wait_ready(lambda: http_ok(f"{config.emulator_url}/_emulator/health"), timeout_s=30)
            if config.worker:
                self._start_worker()
        except BaseException:
            self.stop()
            raise

    def _log(self, name: str) -> Path:
        return self.config.state_dir / f"{name}.log"

    def _launch(self, child: Child) -> Child:
        child.start()
        self.children.append(child)
        return child

    def _start_worker(self) -> Child:
        log_path = None if self.config.worker_to_console else self._log("worker")
        argv = [sys.executable, "-m", "cli", "worker"]
        worker = self._launch(Child("worker", argv, log_path, env=worker_env(self.config)))
        # The worker connects within a second or two; an early exit means bad settings, surface it now.
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline and worker.exit_code() is None:
            time.sleep(0.1)
        if worker.exit_code() is not None:
            raise worker.exited()
        # Machines wait for a current version of the deployment: the stack is up once the worker's is.
        from workers.deployment import build_id, wait_current  # the SDK, only for a stack (cli/commands.py)

        if not asyncio.run(wait_current(self.config.temporal_address, DEV_NAMESPACE, DEV_DEPLOYMENT, build_id(),
                                        WORKER_CURRENT_S)):
            raise StackError(f"the worker's version did not become current within {WORKER_CURRENT_S:.0f} s; see "
                             f"{log_path or 'the output above'}")
        return worker

    def check(self) -> None:
        """Restart a dead worker (a few times); a dead server or emulator stops the stack."""
        for child in list(self.children):
            code = child.exit_code()
            if code is None:
                continue
            if child.name == "worker" and self.worker_restarts < _MAX_WORKER_RESTARTS:
                self.worker_restarts += 1
                log.warning("worker exited, restarting", extra={"code": code, "restart": self.worker_restarts})
                self.children.remove(child)
                child.stop()
                self._start_worker()
                continue
            raise child.exited()

    def stop(self) -> None:
        for child in reversed(self.children):
            child.stop()
        self.children.clear()

    def __enter__(self) -> "DevStack":
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
