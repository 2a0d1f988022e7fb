"""survey_fleet: the fleet as one Resource Graph query and one visibility listing, joined by owner tag.

Costs one graph request per 1,000 resources and one visibility request per 1,000 open machines,
whatever the fleet's size; no per-machine ARM read. The graph lags ARM, so nothing here deletes:
drift (a VM missing, Failed, stopped, or its Resource Health contradicting the machine's phase) only
earns a `reconcile` (the machine reads its VM and its health itself), and orphans are re-checked by
check_orphan (direct GETs, a workflow describe) right before anything is deleted.
"""

import logging
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.clients import AzureClients
from activities.reading.fleet import GraphMachine, split_fleet
from activities.reading.foresight import notices_by_vm, publishes_events
from activities.reading.graph import query_pages, sweep_query
from activities.request_count import counting
from models.foresight import MachineNotices, Notice
from models.health_io import AVAILABLE, CUSTOMER_INITIATED, UNAVAILABLE
from models.search_attributes import AZMC_PHASE
from models.status import Phase
from models.sweep import Drift, FleetSurvey
from models.temporal_api import WORKFLOW_TYPE

log = logging.getLogger("azmc.sweep")
OPEN_MACHINES = f'WorkflowType = "{WORKFLOW_TYPE}" AND ExecutionStatus = "Running"'
VISIBILITY_PAGE = 1000
_STOPPED = {"stopped", "stopping", "deallocated", "deallocating"}
# Phases in which a machine acts on what Azure announces (models/foresight.py).
_FORESEEING = {Phase.RUNNING, Phase.UNHEALTHY, Phase.UNKNOWN, Phase.MAINTENANCE}


def power_state(vm_row: dict[str, Any]) -> str:
    """"deallocated", "running", ... from the graph's `properties.extended.instanceView.powerState`."""
    extended = ((vm_row.get("properties") or {}).get("extended") or {})
    code = str(((extended.get("instanceView") or {}).get("powerState") or {}).get("code", ""))
    return code.removeprefix("PowerState/").lower()


def resource_health(vm_row: dict[str, Any]) -> tuple[str, str, str]:
    """(availability, context, summary) of Resource Health that the survey joined to a VM row: ("Available",
    "Platform Initiated", "Vm is available"); empty strings when the graph has no status for the VM yet."""
    availability, context, summary = (str(vm_row.get(c) or "") for c in ("availability", "health_context",
                                                                          "health_summary"))
    return availability, context, summary


def _health_drift(machine: GraphMachine | None, phase: str) -> str:
    """Resource Health contradicts the phase: Unavailable for Azure's own reasons while Running (a stop or
    deallocation is Customer Initiated, and drift of its own), or Available again while Unhealthy."""
    if machine is None or machine.vm is None:
        return ""
    availability, context, summary = resource_health(machine.vm)
    if phase == Phase.RUNNING and availability == UNAVAILABLE and context != CUSTOMER_INITIATED:
        return f"Resource Health Unavailable: {summary or context or 'no reason given'}"
    if phase == Phase.UNHEALTHY and availability == AVAILABLE:
        return "Resource Health Available again"
    return ""


def drift_of(phase: str, machine: GraphMachine | None) -> str:
    """Why an open machine needs a `reconcile` now ("" when Azure agrees with what it believes)."""
    if phase == Phase.RUNNING:
        if machine is None or machine.vm is None:
            return "VM missing"
        properties = machine.vm.get("properties") or {}
        if str(properties.get("provisioningState", "")).lower() == "failed":
            return "VM Failed"
        power = power_state(machine.vm)
        return f"VM {power}" if power in _STOPPED else _health_drift(machine, phase)
    if phase == Phase.UNHEALTHY:
        return _health_drift(machine, phase)
    if phase == Phase.UNKNOWN and machine is not None and machine.vm is not None:
        # It believes its VM is missing or unhealthy; the graph shows one running: let it look again.
        healthy = str((machine.vm.get("properties") or {}).get("provisioningState", "")).lower() == "succeeded"
        return "VM running again" if healthy and power_state(machine.vm) == "running" else ""
    return ""  # Pending, Creating, CrashLoopBackOff, Failed, Terminating: the machine is busy or waits on purpose


def notices_of(phase: str, machine: GraphMachine | None, by_vm: dict[str, list[Notice]]) -> list[Notice]:
    """What Azure announced of the machine's VM, for a machine that has a VM to act on and asked for foresight (its
    VM publishes its scheduled events); [] otherwise, so a machine without foresight is never signalled."""
    if phase not in _FORESEEING or machine is None or machine.vm is None:
        return []
    if not publishes_events(machine.vm.get("properties") or {}):
        return []
    return by_vm.get(str(machine.vm.get("id", "")).lower(), [])


async def open_machines(client: Client, candidates: list[str]) -> tuple[dict[str, tuple[str, str]], int, int]:
    """Open MachineLifecycle workflows -> (id, phase), by lower-case id; visibility pages; describes.

    One paged visibility listing. A server that cannot list (the time-skipping test server) is asked
    per candidate instead (describe), which is correct but costs one call per machine."""
    found: dict[str, tuple[str, str]] = {}
    pages = 0
    try:
        listing = client.list_workflows(OPEN_MACHINES, page_size=VISIBILITY_PAGE)
        while True:
            await listing.fetch_next_page(page_size=VISIBILITY_PAGE)
            pages += 1
            for execution in listing.current_page or []:
                found[execution.id.lower()] = (execution.id, execution.typed_search_attributes.get(AZMC_PHASE) or "")
            if not listing.next_page_token:
                return found, pages, 0
    except RPCError as error:
        if error.status != RPCStatusCode.UNIMPLEMENTED:
            raise
    log.info("visibility listing unavailable; describing %d candidate workflows", len(candidates))
    for wf_id in candidates:
        try:
            description = await client.get_workflow_handle(wf_id).describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                continue
            raise
        if description.status == WorkflowExecutionStatus.RUNNING:
            found[wf_id.lower()] = (wf_id, description.typed_search_attributes.get(AZMC_PHASE) or "")
    return found, 0, len(candidates)


async def survey_fleet(clients: AzureClients, client: Client) -> FleetSurvey:
    if not clients.installation_id:
        raise ValueError("the fleet sweep needs the installation id")
    with counting() as requests:
        rows, graph_pages = await query_pages(clients, sweep_query(), "survey the azmc fleet")
    fleet = split_fleet(rows, clients.installation_id)
    candidates = [m.workflow_id for m in [*fleet.ours.values(), *fleet.legacy.values()]]
    open_phases, visibility_pages, describes = await open_machines(client, candidates)
    drift = []
    notices = []
    by_vm = notices_by_vm(rows)
    for wf_key, (wf_id, phase) in sorted(open_phases.items()):
        machine = fleet.ours.get(wf_key) or fleet.legacy.get(wf_key)
        reason = drift_of(phase, machine)
        if reason:
            drift.append(Drift(workflow_id=wf_id, reason=reason))
        found = notices_of(phase, machine, by_vm)
        if found:
            notices.append(MachineNotices(workflow_id=wf_id, notices=found))
    orphans = [m.orphan() for key, m in sorted(fleet.ours.items()) if key not in open_phases]
    marked_open = [m.orphan() for key, m in sorted(fleet.ours.items()) if key in open_phases and m.marked]
    legacy = sum(1 for key in fleet.legacy if key not in open_phases)
    phases: dict[str, int] = {}
    for _, phase in open_phases.values():
        phases[phase or "unknown"] = phases.get(phase or "unknown", 0) + 1
    return FleetSurvey(
        phases=dict(sorted(phases.items())),
        machines_seen=len(open_phases) + len(orphans) + legacy, drift=drift, orphans=orphans, marked_open=marked_open,
        other_owners=fleet.other_owners, legacy=legacy, notices=notices, graph_pages=graph_pages,
        visibility_pages=visibility_pages, workflow_describes=describes, arm_requests=sum(requests.values()),
    )

