"""The charts of docs/performance.md, drawn from bench/results/*.json: `python -m bench.charts [--out docs]`.

Two SVG files: the lifecycle rate of azmc against the bare engine round by round (the best round alone when
the results hold no rounds), and ARM requests per clean lifecycle, azmc's reads and writes against MCM's
count. The SVG is written as text, so the charts need nothing beyond the standard library.
"""

import argparse
import json
import re
from html import escape
from pathlib import Path
from typing import Any

from bench.results_file import RESULTS_DIR

DOCS = Path(__file__).resolve().parent.parent / "docs"
LIFECYCLE_SVG = "performance-lifecycle.svg"
ARM_SVG = "performance-arm-requests.svg"
AZMC, AZMC_WRITES, BARE, PEER = "#2f6fd0", "#16407f", "#a0a7b4", "#d07a2f"
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 320, 56, 16, 56, 40

Segment = tuple[str, float, str]  # what it counts, its value, its colour
Bar = list[Segment]  # stacked from the bottom
Group = tuple[str, list[Bar], str]  # label under it, its bars side by side, a note above it


def _rows(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["metric"]: row for row in document["rows"]}


def _peer_number(peer: str | None) -> float:
    """The first number of a peer cell ("bare 16.12/s", "MCM 13")."""
    match = re.search(r"\d+(?:\.\d+)?", peer or "")
    if match is None:
        raise ValueError(f"no number in the peer {peer!r}")
    return float(match.group())


def lifecycle_groups(document: dict[str, Any]) -> list[Group]:
    """One group per round: azmc's rate and the bare engine's, with their ratio above."""
    rounds = (document.get("series") or {}).get("rounds")
    if rounds:
        pairs = [(f"round {number}", entry["azmc"], entry["bare"]) for number, entry in enumerate(rounds, 1)]
    else:
        best = _rows(document)["lifecycle rate (create -> Running -> delete)"]
        pairs = [("best round", best["value"], _peer_number(best["peer"]))]
    return [(label, [[("azmc", azmc, AZMC)], [("bare engine", bare, BARE)]], f"{azmc / bare:.2f}")
            for label, azmc, bare in pairs]  # fmt: skip


def arm_groups(document: dict[str, Any]) -> list[Group]:
    """azmc's requests of one clean lifecycle (reads under writes) beside MCM's."""
    rows = _rows(document)
    reads = rows["ARM reads per clean lifecycle"]["value"]
    writes = rows["ARM writes+deletes per clean lifecycle"]["value"]
    mcm = _peer_number(rows["ARM requests per clean lifecycle"]["peer"])
    return [("azmc", [[("azmc reads", reads, AZMC), ("azmc writes and deletes", writes, AZMC_WRITES)]],
             f"{reads + writes:g}"),
            ("MCM", [[("MCM requests", mcm, PEER)]], f"{mcm:g}")]  # fmt: skip


def _axis_top(highest: float) -> float:
    """A round number at or above the highest bar, so the axis reads in whole steps."""
    step = 10 ** max(len(str(int(highest))) - 1, 0)
    return max(step, -(-highest // step) * step)


def bar_chart(title: str, unit: str, groups: list[Group]) -> str:
    """An SVG document: the groups left to right, a y axis in `unit`, a legend of every segment's name."""
    top = _axis_top(max(sum(value for _, value, _ in bar) for _, bars, _ in groups for bar in bars))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    y = lambda value: TOP + plot_h - value / top * plot_h  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{LEFT}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
           f'<text x="8" y="{TOP - 8}" fill="#555">{escape(unit)}</text>']  # fmt: skip
    for tick in range(5):
        value = top * tick / 4
        out += [f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#e3e5e8"/>',
                f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" fill="#555">{value:g}</text>']
    slot = plot_w / len(groups)
    bar_w = min(48.0, slot * 0.7 / max(len(bars) for _, bars, _ in groups))
    legend: dict[str, str] = {}
    for index, (label, bars, note) in enumerate(groups):
        centre = LEFT + slot * (index + 0.5)
        left = centre - bar_w * len(bars) / 2
        highest = 0.0
        for number, bar in enumerate(bars):
            base = 0.0
            for name, value, colour in bar:
                legend.setdefault(name, colour)
                out.append(f'<rect x="{left + number * bar_w:.1f}" y="{y(base + value):.1f}" width="{bar_w - 2:.1f}" '
                           f'height="{y(base) - y(base + value):.1f}" fill="{colour}"><title>{escape(name)}: '
                           f'{value:g}</title></rect>')  # fmt: skip
                base += value
            highest = max(highest, base)
        out += [f'<text x="{centre:.1f}" y="{y(highest) - 6:.1f}" text-anchor="middle">{escape(note)}</text>',
                f'<text x="{centre:.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{escape(label)}</text>']
    x = LEFT
    for name, colour in legend.items():
        out += [f'<rect x="{x}" y="30" width="10" height="10" fill="{colour}"/>',
                f'<text x="{x + 14}" y="39">{escape(name)}</text>']
        x += 24 + 7 * len(name)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def draw(results: Path = RESULTS_DIR, out: Path = DOCS) -> list[Path]:
    """Write both charts into `out` from the results in `results`; returns their paths."""
    read = lambda module: json.loads((results / f"{module}.json").read_text())  # noqa: E731
    charts = {
        LIFECYCLE_SVG: bar_chart("Lifecycle rate: azmc against the bare engine (ratio above)", "machines/s",
                                 lifecycle_groups(read("lifecycle"))),
        ARM_SVG: bar_chart("ARM requests per clean lifecycle: azmc against MCM", "requests",
                           arm_groups(read("arm_requests"))),
    }  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    for name, svg in charts.items():
        (out / name).write_text(svg)
    return [out / name for name in charts]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.charts", description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="the results folder")
    parser.add_argument("--out", type=Path, default=DOCS, help="where the SVG files go")
    args = parser.parse_args()
    for path in draw(args.results, args.out):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
