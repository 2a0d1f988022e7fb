"""The processes a Temporal bench runs on: a dev server, the emulator, an `azmc worker` (and a bare worker),
each on free loopback ports with its log in a folder; plus what /proc says about them (CPU, RSS)."""

import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cli.processes import Child, free_port, tcp_open, temporal_binary
from cli.stack import ONE_PARTITION_FLAGS, emulator_on_free_port, search_attribute_flags
from models.pace import DEFAULT_ARM_PACES, Budget

ROOT = Path(__file__).resolve().parents[1]
_ENV = {"PYTHONPATH": str(ROOT)}


def rss_mib(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of a process, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (/proc/<pid>/stat utime + stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Processes:
    server: Child
    emulator: Child
    azmc_worker: Child
    bare_worker: Child | None
    address: str
    emulator_url: str

    def children(self) -> dict[str, Child]:
        named = {"server": self.server, "emulator": self.emulator, "azmc worker": self.azmc_worker}
        return {**named, "bare worker": self.bare_worker} if self.bare_worker else named

    def stop(self) -> None:
        for child in reversed(list(self.children().values())):
            child.stop()

    def cpu(self) -> dict[str, float]:
        return {name: cpu_seconds(child.process.pid) for name, child in self.children().items() if child.process}

    def worker_pid(self) -> int:
        assert self.azmc_worker.process is not None
        return self.azmc_worker.process.pid


def cpu_used(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {name: after[name] - before[name] for name in after}


def cpu_line(before: dict[str, float], after: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.1f}" for name, seconds in cpu_used(before, after).items())


def dev_server(logs: Path, flags: tuple[str, ...] = ()) -> tuple[Child, str]:
    """A Temporal dev server (azmc's search attributes registered) on a free loopback port, not yet started,
    and its address."""
    port = free_port()
    argv = [temporal_binary(), "server", "start-dev", "--ip", "127.0.0.1", "--port", str(port), "--headless",
            "--log-level", "error", *search_attribute_flags(), *ONE_PARTITION_FLAGS, *flags]  # fmt: skip
    return Child("temporal", argv, logs / "temporal.log"), f"127.0.0.1:{port}"


def wait_for_server(server: Child, address: str) -> None:
    server.wait_ready(lambda: tcp_open(int(address.rsplit(":", 1)[1])), 60)
    time.sleep(1.0)  # the frontend accepts connections a moment before the namespace is served


# These benches measure the worker against an emulator without Azure's limits: the writes' pace (models/pace.py,
# Azure's budgets) is lifted, or it, not the worker, would be what they measure.
def pace_env(paces: Mapping[Budget, float], arm_paces: Mapping[str, float]) -> dict[str, str]:
    """The worker's AZMC_PACE_* settings for these paces (models/pace.py's budgets; ARM's by kind)."""
    return {**{f"AZMC_PACE_{budget.name}_PER_S": str(pace) for budget, pace in paces.items()},
            **{f"AZMC_PACE_ARM_{kind.upper()}_PER_S": str(pace) for kind, pace in arm_paces.items()}}


UNPACED = pace_env(dict.fromkeys(Budget, 1000), dict.fromkeys(DEFAULT_ARM_PACES, 10000))


def start_emulator(logs: Path, flags: tuple[str, ...], name: str = "emulator") -> tuple[Child, str]:
    """The emulator (seeded) on a free loopback port with these flags, started and serving; and its URL."""
    emulator, port = emulator_on_free_port(logs / f"{name}.log", flags, name)
    return emulator, f"http://127.0.0.1:{port}"


@contextmanager
def emulator_alone(flags: tuple[str, ...], name: str) -> Iterator[str]:
    """The emulator for a bench that needs nothing else, its log in a temporary folder; its URL."""
    with tempfile.TemporaryDirectory(prefix=f"azmc-{name}-") as logs:
        emulator, url = start_emulator(Path(logs), flags)
        try:
            yield url
        finally:
            emulator.stop()


def start_worker(log: Path, address: str, emulator_url: str, env: Mapping[str, str] | None = None,
                 wait: bool = False) -> Child:
    """An `azmc worker` process on the server at `address` and the emulator at `emulator_url`, Azure's budgets
    lifted unless `env` sets the paces; `wait`: return once it says it started."""
    azmc_env = {**_ENV, "AZMC_TEMPORAL_ADDRESS": address, "AZMC_AZURE_ENDPOINT": emulator_url, "AZMC_METRICS_PORT": "0",
                **UNPACED, **(env or {})}  # fmt: skip
    worker = Child("azmc worker", [sys.executable, "-m", "cli", "worker"], log, env=azmc_env)
    said_started = started_from_now(log) if wait else None
    worker.start()
    if said_started is not None:
        worker.wait_ready(said_started, 60)
    return worker


def started_from_now(log: Path) -> Callable[[], bool]:
    """Whether the worker about to write `log` has said it started. Only what is written from now on counts: a
    worker started again appends to its predecessor's log, which says so already."""
    mark = log.stat().st_size if log.exists() else 0

    def said() -> bool:
        with log.open("rb") as text:
            text.seek(mark)
            return b"worker started" in text.read()
    return said


def start_processes(logs: Path, *, bare: bool = True, worker_env: dict[str, str] | None = None,
                    server_flags: tuple[str, ...] = (), emulator_flags: tuple[str, ...] = ("--time-scale", "0"),
                    wait_for_worker: bool = False) -> Processes:  # fmt: skip
    """Dev server + emulator (seeded; time scale 0 unless `emulator_flags` say otherwise) + azmc worker
    (+ bare worker); `worker_env`: extra AZMC_*; `wait_for_worker`: return once the worker says it started."""
    server, address = dev_server(logs, server_flags)
    server.start()
    emulator, emulator_url = start_emulator(logs, emulator_flags)
    wait_for_server(server, address)
    azmc_worker = start_worker(logs / "worker.log", address, emulator_url, worker_env, wait=wait_for_worker)
    bare_worker = None
    if bare:
        bare_worker = Child("bare worker", [sys.executable, "-m", "bench.bare", "--address", address],
                            logs / "bare.log", env=_ENV)  # fmt: skip
        bare_worker.start()
    return Processes(server, emulator, azmc_worker, bare_worker, address, emulator_url)
