"""One table from every bench module's results: `python -m bench.report [--markdown]`.

Reads bench/results/<module>.json (any module; not latest.json), prints one table (metric, measured,
goal, peer, note) with the machine the numbers came from, and writes all of it to
bench/results/latest.json so a later change can be compared. `--markdown` prints the table as the
README shows it.
"""

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.results_file import LATEST, RESULTS_DIR, machine_description

# The order a reader follows (requests, then rate, then scale); modules not named here follow, by name.
MODULE_ORDER = ("emulator_rate", "arm_requests", "lifecycle", "lifecycle_tracing", "visibility_cost", "scale",
                "scale_out", "watch_cost", "repair_time", "pool_rollout", "fleet_churn", "capacity_fallback",
                "upgrade_fleet")
COLUMNS = ("metric", "measured", "goal", "peer", "note")


def load(directory: Path = RESULTS_DIR) -> list[dict[str, Any]]:
    """Every module's results document, in reading order."""
    documents = [json.loads(path.read_text()) for path in sorted(directory.glob("*.json")) if path.name != LATEST]
    rank = {name: index for index, name in enumerate(MODULE_ORDER)}
    return sorted(documents, key=lambda doc: (rank.get(doc["module"], len(rank)), doc["module"]))


def measured(value: float, unit: str) -> str:
    """A value as a reader wants it: thousands separated, at most 2 decimals, with its unit."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        text = str(value)
    elif float(value).is_integer():
        text = f"{int(value):,}"
    elif abs(value) >= 100:
        text = f"{value:,.0f}"
    else:
        text = f"{value:,.2f}".rstrip("0").rstrip(".") if abs(value) < 10 else f"{value:,.1f}"
    return f"{text} {unit}".strip()


def table_rows(documents: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [{"metric": f"{doc['module']}: {row['metric']}", "measured": measured(row["value"], row.get("unit") or ""),
             "goal": row.get("goal") or "", "peer": row.get("peer") or "", "note": row.get("note") or ""}
            for doc in documents for row in doc["rows"]]  # fmt: skip


def render_text(rows: list[dict[str, str]]) -> str:
    widths = {col: max([len(col), *(len(row[col]) for row in rows)]) for col in COLUMNS}
    line = lambda cells: "  ".join(cells[col].ljust(widths[col]) for col in COLUMNS).rstrip()  # noqa: E731
    return "\n".join([line({col: col for col in COLUMNS}), line({col: "-" * widths[col] for col in COLUMNS}),
                      *(line(row) for row in rows)])  # fmt: skip


def render_markdown(rows: list[dict[str, str]]) -> str:
    escape = lambda text: text.replace("|", "\\|")  # noqa: E731
    return "\n".join([f"| {' | '.join(COLUMNS)} |", f"|{'---|' * len(COLUMNS)}",
                      *(f"| {' | '.join(escape(row[col]) for col in COLUMNS)} |" for row in rows)])  # fmt: skip


def machines_line(documents: list[dict[str, Any]]) -> str:
    machines = sorted({doc["machine"] for doc in documents}) or [machine_description()]
    whens = sorted(doc["when"] for doc in documents)
    span = f"{whens[0]} .. {whens[-1]}" if whens else "no results yet"
    return f"measured on {' / '.join(machines)} ({span})"


def write_latest(documents: list[dict[str, Any]], directory: Path = RESULTS_DIR) -> Path:
    latest = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"), "machine": machines_line(documents),
        "modules": {doc["module"]: {"machine": doc["machine"], "when": doc["when"]} for doc in documents},
        "rows": [{"module": doc["module"], **row} for doc in documents for row in doc["rows"]],
    }
    path = directory / LATEST
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(latest, indent=2) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown (for the README)")
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="the results folder")
    args = parser.parse_args()
    documents = load(args.results)
    rows = table_rows(documents)
    print(machines_line(documents))
    print(render_markdown(rows) if args.markdown else render_text(rows))
    print(f"(written to {write_latest(documents, args.results)})")


if __name__ == "__main__":
    main()
