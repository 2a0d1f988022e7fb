"""The machine's current details in the Temporal UI: its state drawn as Markdown, readable without the code."""

from datetime import datetime

from workflows.machine.state import LifecycleState


def _when(moment: datetime | None, now: datetime) -> str:
    if moment is None:
        return "-"
    seconds = int((moment - now).total_seconds())
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC (in {seconds}s)" if seconds >= 0 else f"{moment:%H:%M:%S} UTC"


def render_details(state: LifecycleState, now: datetime) -> str:
    """Markdown for the Temporal UI's current details: readable without knowing the code."""
    status, spec = state.status, state.spec
    last = status.last_operation
    lines = [
        f"## {spec.name} - {status.phase}",
        f"**{spec.vm_size}** in `{spec.resource_group}` ({spec.location})"
        + (f", pool `{spec.pool}`" if spec.pool else ""),
        "",
        f"- **Inventory:** {status.inventory.summary()}" + (
            f" (as of {status.inventory_at:%H:%M:%S} UTC)" if status.inventory_at else ""),
        f"- **Last operation:** {last.stage} {last.state} - {last.description}" if last else
        "- **Last operation:** none yet",
        f"- **Creation attempts:** {status.attempts}",
        f"- **Last error:** {status.last_error or 'none'}",
        f"- **Next retry:** {_when(status.next_retry_at, now)}",
    ]
    if status.offering is not None:
        lines.append(f"- **Offering:** {status.offering.describe()}")
    skipped = status.offering_attempts[-1].skipped if status.offering_attempts else []
    if skipped:
        lines.append(f"- **Skipped by attempt {status.offering_attempts[-1].attempt}:**")
        lines += [f"  - {s.describe(now)}" for s in skipped]
    if status.inventory.data_disks:
        lines.append("- **Data disks:** " + ", ".join(d.describe() for d in status.inventory.data_disks))
    if status.stalled:
        lines.append("- **Waiting to retry:**")
        lines += [f"  - {s.stage}: {s.description} (failure {s.failures}): {s.error or 'no error text'}; "
                  f"next retry {_when(s.next_retry_at, now)}" for s in status.stalled]
    if status.health:
        heading = status.health_heading()
        lines.append(f"- **Health** ({heading}):" if heading else "- **Health:**")
        lines += [f"  - {signal.describe()}" for signal in status.health]
    if status.repair is not None:
        lines.append(f"- **Repair:** {status.repair.describe()}")
    if status.maintenance is not None:
        lines.append(f"- **Maintenance:** {status.maintenance.describe()}")
    if status.preserved:
        lines.append(f"- **Preserved:** {status.preserved_reason} (VM deallocated, everything kept; no healing until "
                     "`delete`)")
    if status.refused:
        lines.append("- **Messages refused** (payload not decodable):")
        lines += [f"  - {m.describe()}" for m in status.refused]
    if state.delete_request is not None:
        reason = state.delete_request.reason or "no reason given"
        lines.append(f"- **Deletion requested:** {reason}" + (" (force)" if state.delete_request.force else ""))
    if state.runs > 1:
        lines.append(f"- **Run:** {state.runs} (continued as new)")
    return "\n".join(lines)
