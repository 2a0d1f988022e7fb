"""A machine's health signals, read: the VM agent (from the VM read the check made anyway), Resource Health and
the probe of the guest, each as the spec's `health` section asks. They land in status.health.

Resource Health costs an ARM read, so a routine check of a VM whose agent is Ready skips it: it is read when the
check was asked for (`reconcile`, the fleet sweep), while the machine starts or is unhealthy, and until it last
said Available again. The fleet sweep watches it for the whole fleet in one query (docs/health.md).
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.health_io import ProbeInput
    from models.inventory import Inventory
    from models.status import HealthSignal

from workflows.azure_calls import AzureCalls, error_text
from workflows.machine.bookkeeping import Machine

VM_AGENT, RESOURCE_HEALTH, PROBE = "vm_agent", "resource_health", "probe"
AGENT_READY = "Ready"


def _signal(machine: Machine, name: str, value: str, healthy: bool, reason: str = "") -> HealthSignal:
    """The signal as now read; `since` stays while neither its value nor its verdict changed."""
    last = last_signal(machine, name)
    since = last.since if last is not None and (last.value, last.healthy) == (value, healthy) else workflow.now()
    return HealthSignal(name=name, value=value, healthy=healthy, since=since, reason=reason[:300])


def last_signal(machine: Machine, name: str) -> HealthSignal | None:
    return next((s for s in machine.state.status.health if s.name == name), None)


def unhealthy_signals(machine: Machine) -> list[HealthSignal]:
    return [s for s in machine.state.status.health if not s.healthy]


def describe(signals: list[HealthSignal]) -> str:
    return "; ".join(f"{s.name} {s.value}" + (f" ({s.reason})" if s.reason else "") for s in signals)


async def read_signals(machine: Machine, azure: AzureCalls, vm: Inventory, *, thorough: bool) -> list[HealthSignal]:
    """Every configured signal of the running VM `vm` (just read). Returns those that say unhealthy."""
    health = machine.state.spec.health
    signals: list[HealthSignal] = []
    if health.vm_agent:
        agent = vm.vm_state.agent or "missing"
        signals.append(_signal(machine, VM_AGENT, agent, agent == AGENT_READY, vm.vm_state.agent_message))
    if health.resource_health:
        last = last_signal(machine, RESOURCE_HEALTH)
        wanted = thorough or any(not s.healthy for s in signals) or (last is not None and not last.healthy)
        read = await _resource_health(machine, azure) if wanted else last
        if read is not None:
            signals.append(read)
    if health.probe is not None:
        signals.append(await _probe(machine, azure))
    machine.health_read(signals)
    return [s for s in signals if not s.healthy]


async def probe_only(machine: Machine, azure: AzureCalls) -> bool:
    """Between full checks, while Running or Unhealthy (a repair step's wait too): probe the guest alone. True while
    its verdict stays what it was, so the full check may wait for its timer; False when it changed (a Running guest
    failing, an Unhealthy one healthy again): check now."""
    last = last_signal(machine, PROBE)
    probed = await _probe(machine, azure)
    machine.health_read([s for s in machine.state.status.health if s.name != PROBE] + [probed])
    return probed.healthy == (last.healthy if last is not None else True)


async def _resource_health(machine: Machine, azure: AzureCalls) -> HealthSignal | None:
    """Azure's reason comes with it; a failed read keeps the last reading (None before any)."""
    try:
        reading = await azure.read_resource_health()
    except ActivityError as err:
        machine.log.info(f"could not read Resource Health: {error_text(err)}")
        return last_signal(machine, RESOURCE_HEALTH)
    return _signal(machine, RESOURCE_HEALTH, reading.state or "Unknown", not reading.unavailable, reading.reason())


async def _probe(machine: Machine, azure: AzureCalls) -> HealthSignal:
    """One probe; the verdict flips only after failure_threshold failures (or success_threshold successes) in a
    row, as a Kubernetes probe's does. A new VM is unhealthy until its first success_threshold successes."""
    state = machine.state
    probe = state.spec.health.probe
    assert probe is not None
    if not state.guest_address:
        try:
            state.guest_address = await azure.guest_address()
        except ActivityError as err:
            machine.log.info(f"could not read the guest's address: {error_text(err)}")
    result = await azure.probe_guest(ProbeInput(address=state.guest_address, probe=probe))
    streak = state.probe_streak
    state.probe_streak = max(streak, 0) + 1 if result.ok else min(streak, 0) - 1
    last = last_signal(machine, PROBE)
    if last is not None and last.healthy:
        healthy = state.probe_streak > -probe.failure_threshold
    else:
        healthy = state.probe_streak >= probe.success_threshold
    if result.ok:
        return _signal(machine, PROBE, "passing", healthy)
    count = f"{-state.probe_streak} in a row, failure_threshold {probe.failure_threshold}"
    return _signal(machine, PROBE, "failing", healthy, f"{result.detail} ({count})")


def new_vm(machine: Machine) -> None:
    """A new VM (created or re-created): its address, its probes and its signals start afresh."""
    state = machine.state
    state.guest_address = ""
    state.probe_streak = 0
    state.status.health, state.status.health_stale = [], ""
