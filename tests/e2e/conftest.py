"""End-to-end fixtures: a real Temporal dev server, the emulator and `azmc worker` processes."""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e.stack import CodecServer, DevServer, EmulatorProcess, WorkerProcess


@dataclass
class Stack:
    server: DevServer
    emulator: EmulatorProcess
    worker: WorkerProcess
    codec: CodecServer | None = None  # for the `temporal` CLI; azmc and the test clients use CODEC_KEYS

    @property
    def address(self) -> str:
        return self.server.address

    @property
    def codec_url(self) -> str:
        return self.codec.url if self.codec else ""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One dev server + emulator + worker per test module (modules share nothing)."""
    logs: Path = tmp_path_factory.mktemp("e2e")
    server = DevServer(db_path=logs / "temporal.db", log_path=logs / "temporal.log")
    emulator = EmulatorProcess(log_path=logs / "emulator.log")
    codec = CodecServer(log_path=logs / "codec-server.log")
    server.start()
    try:
        emulator.start()
        codec.start()
        worker = WorkerProcess(server.address, emulator.url, logs / "worker.log")
        worker.start()
        yield Stack(server, emulator, worker, codec)
        worker.stop()
    finally:
        codec.stop()
        emulator.stop()
        server.stop()
