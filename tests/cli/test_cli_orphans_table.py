"""`azmc orphans` shows, for a resource its grace still protects, what the grace counts from (the mark
azmc-orphan-seen when Temporal knows no workflow of its owner) and when a sweep may delete it (pure)."""

import io
from datetime import UTC, datetime, timedelta

from rich.console import Console

from cli.sweep.orphans import orphans_table
from models.sweep import Skipped, SkipReason, SweepReport

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
GHOST = "machine/azmc-demo/ghost"


def _lines(report: SweepReport) -> list[str]:
    console = Console(file=io.StringIO(), width=300, color_system=None)
    console.print(orphans_table(report, now=NOW))
    return console.file.getvalue().splitlines()


def _row(lines: list[str], resource: str) -> str:
    return next(line for line in lines if line.startswith(resource))


def test_the_mark_and_the_moment_it_becomes_eligible_are_shown() -> None:
    report = SweepReport(marked=[f"NIC ghost-nic ({GHOST})"], skipped=[
        Skipped(resource="NIC ghost-nic", reason=SkipReason.FIRST_SEEN, workflow_id=GHOST, detail="first seen now",
                orphan_since=NOW, eligible_at=NOW + timedelta(minutes=30)),
        Skipped(resource="disk old-disk", reason=SkipReason.YOUNGER_THAN_GRACE, workflow_id="machine/azmc-demo/old",
                orphan_since=NOW - timedelta(minutes=40), eligible_at=NOW - timedelta(minutes=10)),
        Skipped(resource="VM [bold]x[/bold]", reason=SkipReason.NOT_OURS, workflow_id="machine/azmc-demo/x"),
    ])
    lines = _lines(report)
    assert lines[0].split() == ["resource", "machine", "workflow", "what", "happens", "why", "orphaned", "since",
                                "eligible", "at"]
    ghost = _row(lines, "NIC ghost-nic")
    assert GHOST in ghost and "marked, left alone" in ghost and "first-seen: first seen now" in ghost
    assert "2026-05-01T12:00:00Z" in ghost and "2026-05-01T12:30:00Z (in 30m)" in ghost
    old = _row(lines, "disk old-disk")
    assert "left alone" in old and "marked" not in old and "2026-05-01T11:50:00Z (due)" in old
    assert "not-ours" in _row(lines, "VM [bold]x[/bold]")
