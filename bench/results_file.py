"""One home for a bench module's results: bench/results/<module>.json, read back by `python -m bench.report`.

Shape (shared by every bench module): {"module", "machine", "when", "rows": [{"metric", "value", "unit",
"goal", "peer", "note"}]}; `goal` and `peer` are short texts ("<= 13", "MCM 13") or null.
"""

import json
import os
import platform
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"
LATEST = "latest.json"
ROW_KEYS = ("metric", "value", "unit", "goal", "peer", "note")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _ram_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return 0.0


def machine_description() -> str:
    """One line: CPU model, cores, RAM, Python and temporalio versions."""
    return (f"{_cpu_model()}, {os.cpu_count()} cores, {_ram_gib():.1f} GiB RAM, "
            f"Python {platform.python_version()}, temporalio {version('temporalio')}")


def row(metric: str, value: float, unit: str, goal: str | None = None, peer: str | None = None,
        note: str = "") -> dict[str, Any]:
    """A results row in the shared shape."""
    return {"metric": metric, "value": value, "unit": unit, "goal": goal, "peer": peer, "note": note}


def write_results(module: str, rows: list[dict[str, Any]], directory: Path = RESULTS_DIR,
                  series: dict[str, Any] | None = None) -> Path:
    """Write `rows` as directory/<module>.json (replacing that module's previous results); returns the path.
    `series` holds values for bench/charts.py that are no row of the table (a rate per round)."""
    for entry in rows:
        missing = [key for key in ("metric", "value", "unit") if key not in entry]
        if missing:
            raise ValueError(f"bench row {entry!r} lacks {', '.join(missing)}")
    document: dict[str, Any] = {
        "module": module, "machine": machine_description(), "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "rows": [{key: entry.get(key, "" if key == "note" else None) for key in ROW_KEYS} for entry in rows],
    }
    if series:
        document["series"] = series
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{module}.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path
