"""`azmc describe NAME --requests`: the Azure requests of every activity attempt, read from the history.

Each completed attempt's result payload carries its requests in the metadata, each failed attempt as the
last detail of its failure (models/audit.py); the client's codec opens them.
"""

import json
from dataclasses import dataclass

from rich.table import Table
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from cli.render import shown
from models.audit import AUDIT_DETAIL, AUDIT_METADATA, TRAIL, AuditTrail


@dataclass
class Attempt:
    activity: str
    outcome: str  # "completed", or the failure's message
    trail: AuditTrail


async def _open(client: Client, payload: Payload) -> Payload:
    codec = client.data_converter.payload_codec
    return (await codec.decode([payload]))[0] if codec else payload


async def _failure_trail(client: Client, details: list[Payload]) -> AuditTrail:
    for value in reversed(await client.data_converter.decode(details)) if details else []:
        if isinstance(value, dict) and AUDIT_DETAIL in value:
            return AuditTrail.model_validate(value[AUDIT_DETAIL])
    return AuditTrail()


async def read_attempts(client: Client, wf_id: str) -> list[Attempt]:
    scheduled: dict[int, str] = {}
    attempts: list[Attempt] = []
    async for event in client.get_workflow_handle(wf_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[event.event_id] = event.activity_task_scheduled_event_attributes.activity_type.name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            done = event.activity_task_completed_event_attributes
            payloads = list(done.result.payloads)
            opened = await _open(client, payloads[0]) if payloads else Payload()
            raw = opened.metadata.get(AUDIT_METADATA)
            trail = TRAIL.validate_json(raw) if raw else AuditTrail()
            attempts.append(Attempt(scheduled.get(done.scheduled_event_id, "?"), "completed", trail))
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            failed = event.activity_task_failed_event_attributes
            details = list(failed.failure.application_failure_info.details.payloads)
            attempts.append(Attempt(scheduled.get(failed.scheduled_event_id, "?"), failed.failure.message,
                                    await _failure_trail(client, details)))
    return attempts


def _short(resource: str) -> str:
    """The part of an ARM path a reader needs: after `/providers/` (the resource group is the machine's)."""
    return resource.split("/providers/", 1)[-1]


def requests_table(attempts: list[Attempt]) -> Table:
    table = Table("activity", "method", "operation", "resource", "status", "ms",
                  "x-ms-request-id / x-ms-correlation-request-id", box=None, header_style="bold",
                  title="Azure requests, oldest first (--json for every field)", title_justify="left")
    for attempt in attempts:
        for request in attempt.trail.requests:
            table.add_row(attempt.activity, request.method, request.operation, shown(_short(request.resource)),
                          str(request.status or "no answer"), str(request.duration_ms),
                          shown(f"{request.request_id}\n{request.correlation_id}", lines=True))
        if attempt.trail.left_out:
            table.add_row(attempt.activity, "", f"(+{attempt.trail.left_out} earlier requests not kept)")
        if attempt.outcome != "completed":
            table.add_row(attempt.activity, "", "failed", shown(attempt.outcome))
    table.columns[-1].no_wrap = True
    return table


def attempts_json(attempts: list[Attempt]) -> str:
    return json.dumps([{"activity": a.activity, "outcome": a.outcome, **a.trail.model_dump(mode="json")}
                       for a in attempts], indent=2)
