"""Foresight's rows of Resource Graph: the part of the fleet sweep's one query that joins each VM's scheduled events
and Resource Health annotations, and the one function that reads them (`notices_by_vm`).

Microsoft documents the VM's `scheduledEventsPolicy` publishing target (`eventGridAndResourceGraph`), the scheduled
events' fields (the Instance Metadata Service's: EventId, EventType, EventStatus, NotBefore, DurationInSeconds,
Description) and the annotations' names in `HealthResources` (`microsoft.resourcehealth/resourceannotations`). The
table and row type the events land in, and the annotations' property names, were not verified against a published
row: they are what the emulator models, and read here only, so a correction is one place.
"""

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from models.foresight import Notice, NoticeKind

EVENT_ROW_TYPE = "microsoft.compute/virtualmachines/scheduledevents"
ANNOTATION_ROW_TYPE = "microsoft.resourcehealth/resourceannotations"
DEGRADED_ANNOTATIONS = frozenset({"VirtualMachinePossiblyDegradedDueToHardwareFailure"})
_EVENT_KINDS = {kind.value.lower(): kind for kind in NoticeKind if kind != NoticeKind.DEGRADED}

# Joined after the Resource Health join: a VM with no notice keeps one row (null `notice`), one with n has n rows.
FORESIGHT_JOIN = (
    " | join kind=leftouter (HealthResources"
    f" | where type in~ ('{EVENT_ROW_TYPE}', '{ANNOTATION_ROW_TYPE}')"
    " | extend vmid = tolower(tostring(properties.targetResourceId))"
    " | project vmid, notice_type = type, notice = properties) on vmid"
)
FORESIGHT_COLUMNS = "notice_type, notice"


def publishes_events(vm_properties: dict[str, Any]) -> bool:
    """The VM's scheduledEventsPolicy publishes its events to Event Grid and Resource Graph (spec `foresight`)."""
    policy = vm_properties.get("scheduledEventsPolicy") or {}
    targets = policy.get("scheduledEventsAdditionalPublishingTargets") or {}
    return bool((targets.get("eventGridAndResourceGraph") or {}).get("enable"))


def _when(text: Any) -> datetime | None:
    """NotBefore: RFC 1123 as the IMDS writes it, or ISO 8601; None when empty or unreadable."""
    if not text or not isinstance(text, str):
        return None
    try:
        parsed = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def notice_of(notice_type: str, properties: dict[str, Any]) -> Notice | None:
    """One joined row's notice; None for an annotation azmc does not act on, or an event of no known type."""
    if notice_type.lower() == ANNOTATION_ROW_TYPE:
        name = str(properties.get("annotationName") or "")
        if name not in DEGRADED_ANNOTATIONS:
            return None
        return Notice(kind=NoticeKind.DEGRADED, id=name, status="Active",
                      description=str(properties.get("summary") or "")[:300])
    kind = _EVENT_KINDS.get(str(properties.get("EventType") or "").lower())
    if kind is None:
        return None
    duration = properties.get("DurationInSeconds")
    return Notice(kind=kind, id=str(properties.get("EventId") or ""), status=str(properties.get("EventStatus") or
                                                                                 "Scheduled"),
                  not_before=_when(properties.get("NotBefore")),
                  duration_s=duration if isinstance(duration, int) and not isinstance(duration, bool) else -1,
                  description=str(properties.get("Description") or "")[:300])


def notices_by_vm(rows: list[dict[str, Any]]) -> dict[str, list[Notice]]:
    """The sweep's rows -> each VM's notices (by lower-case VM id), in the graph's order, each once."""
    found: dict[str, list[Notice]] = {}
    for row in rows:
        properties = row.get("notice")
        if not isinstance(properties, dict) or not row.get("notice_type"):
            continue
        notice = notice_of(str(row["notice_type"]), properties)
        vm_id = str(row.get("id", "")).lower()
        if notice is not None and notice not in found.setdefault(vm_id, []):
            found[vm_id].append(notice)
    return found
