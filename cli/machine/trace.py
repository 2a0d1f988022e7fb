"""`azmc trace RG/NAME`: a machine's last operations as trees with durations (workflow steps, activities, ARM
requests with their status codes and request ids, waits), read from the spans a worker keeps in a file
(`AZMC_TRACE_FILE`, which `azmc dev` sets: workers/trace_file.py). No collector needed to look; with one, the same
traces are there (docs/observability.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_FILE = Path(".azmc") / "traces.jsonl"
MESSAGE_CHARS = 100  # of an error's first line: the request's status and Azure's code say the rest
# Attributes shown after a span's name, in this order, under these names.
SHOWN = (("http.response.status_code", ""), ("azure.error.code", ""), ("azmc.offering", ""),
         ("azmc.outcome", ""), ("azmc.repair_step", "step "), ("temporal.activity.attempt", "attempt "),
         ("azmc.error_type", ""), ("azmc.wait.verdict", ""), ("az.service_request_id", "request id "),
         ("az.correlation_request_id", "correlation id "))


@dataclass
class Span:
    record: dict[str, Any]
    children: list[Span] = field(default_factory=list)

    @property
    def start(self) -> int:
        return int(self.record.get("start_ns") or 0)

    @property
    def seconds(self) -> float:
        return max(int(self.record.get("end_ns") or 0) - self.start, 0) / 1e9


def read_spans(path: Path) -> list[dict[str, Any]]:
    """Every span in the file and the one it rotated to, oldest first; a torn last line is skipped."""
    records = []
    for part in (path.with_name(path.name + ".1"), path):
        if not part.exists():
            continue
        for line in part.read_text(errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    return records


def _of_machine(record: dict[str, Any], machine: str) -> bool:
    attributes = record.get("attributes", {})
    said = attributes.get("azmc.machine") or str(attributes.get("temporal.workflow.id", "")).removeprefix("machine/")
    return said == machine or ("/" not in machine and said.endswith("/" + machine))


def operations(records: Iterable[dict[str, Any]], machine: str, last: int) -> list[Span]:
    """The machine's last `last` operations, each a root with its tree (a root still open: its steps so far)."""
    records = list(records)
    traces = {r["trace_id"] for r in records if _of_machine(r, machine)}
    by_trace: dict[str, list[Span]] = {}
    for record in records:
        if record["trace_id"] in traces:
            by_trace.setdefault(record["trace_id"], []).append(Span(record))
    roots = []
    for spans in by_trace.values():
        ids = {span.record["span_id"]: span for span in spans}
        tops: list[Span] = []
        for span in sorted(spans, key=lambda s: s.start):
            parent = ids.get(span.record.get("parent_id", ""))
            (parent.children if parent is not None else tops).append(span)
        if len(tops) == 1:
            roots.append(tops[0])
        else:  # the operation is still open: its root span is written when it ends
            open_root = Span({"name": "(operation still open)", "trace_id": tops[0].record["trace_id"],
                              "start_ns": tops[0].start,
                              "end_ns": max(int(t.record.get("end_ns") or 0) for t in tops), "attributes": {}})
            open_root.children = tops
            roots.append(open_root)
    return sorted(roots, key=lambda s: s.start)[-last:]


def _duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def _label(span: Span) -> str:
    record, attributes = span.record, span.record.get("attributes", {})
    name = record["name"]
    if name.startswith("machine."):
        name = f"{name.removeprefix('machine.')} {attributes.get('azmc.machine', '')}"
    parts = [name, _duration(span.seconds)]
    parts += [f"{prefix}{attributes[key]}" for key, prefix in SHOWN if attributes.get(key) not in (None, "")]
    if record.get("status") == "ERROR":
        said = (record.get("status_message") or "").splitlines()
        parts.append("ERROR" + (f": {said[0][:MESSAGE_CHARS]}" if said else ""))
    for link in record.get("links", []):
        if link.get("attributes", {}).get("azmc.link", "").startswith("answered"):
            parts.append(f"answered by shared status read {link['span_id']}")
    return "  ".join(parts)


def render(roots: list[Span]) -> list[str]:
    lines: list[str] = []

    def walk(span: Span, prefix: str, last: bool) -> None:
        lines.append(f"{prefix}{'└─ ' if last else '├─ '}{_label(span)}")
        deeper = prefix + ("   " if last else "│  ")
        for index, child in enumerate(span.children):
            walk(child, deeper, index == len(span.children) - 1)

    for root in roots:
        lines.append(f"{_label(root)}  trace {root.record.get('trace_id', '?')}")
        for index, child in enumerate(root.children):
            walk(child, "", index == len(root.children) - 1)
        lines.append("")
    return lines
