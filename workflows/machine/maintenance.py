"""A machine in Maintenance (foresight.py decided it): wait while a planned event pauses its health checks, or
redeploy ahead of Azure once its pool allows it, and the watch's look at the sweep's latest notices.

A redeploy goes inside Azure's self-service maintenance window when the VM's instance view shows one that ends by
the deadline (`maintenanceRedeployStatus`): the machine waits on a timer until it opens; otherwise it redeploys at
once.

A pool's Spot machine whose eviction Azure announced tells the offerings memory, then its pool (`_preempted`). The
waits hold no lock, so an `update_spec` goes through; an operator's `reconcile` ends a Maintenance at once.
Deterministic; the clock sets only the length of a wait's timer.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.foresight import REDEPLOYS, Notice
    from models.health import RepairAction
    from models.offerings import offerings_of
    from models.status import OperationState, Phase, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text
from workflows.deadlines import Deadline
from workflows.machine import fallback, foresight
from workflows.machine.bookkeeping import Machine


@dataclass
class Asks:
    """What the machine's workflow was asked meanwhile, as Maintenance needs it."""

    news: Callable[[], list[Notice] | None]  # the latest notices not looked at yet; None while none came
    take_news: Callable[[], list[Notice] | None]  # the same, now looked at
    take_reconcile: Callable[[], bool]  # an operator's `reconcile` came: True, and it is now acted on
    requested: Callable[[], bool]  # a delete, reconcile or preserve came, or the run should continue as new
    until_deleted: Callable[[Awaitable[Any]], Awaitable[Any]]  # runs a flow under the lock, stopped by `delete`


async def foresee(machine: Machine, azure: AzureCalls, notices: list[Notice]) -> bool:
    """The sweep's latest notices, while watched: True when one puts the machine in Maintenance."""
    foresight.still_announced(machine, notices)
    await _preempted(machine, azure, notices)
    upcoming = foresight.next_notice(machine, notices)
    if upcoming is None or machine.phase not in (Phase.RUNNING, Phase.UNHEALTHY):
        return False
    foresight.begin(machine, upcoming, notices)
    return True


async def maintain(machine: Machine, azure: AzureCalls, asks: Asks) -> None:
    """In Maintenance: a redeploy announced meanwhile takes over a paused wait; an operator's `reconcile` ends it
    (the health check reads the VM at once); otherwise its redeploy, or a wait."""
    notices = asks.take_news()
    if notices is not None:
        foresight.still_announced(machine, notices)
        await _preempted(machine, azure, notices)
        foresight.heard(machine, notices)
        upcoming = foresight.next_notice(machine, notices)
        current = machine.state.status.maintenance
        if machine.phase == Phase.MAINTENANCE and upcoming is not None and upcoming.kind in REDEPLOYS \
                and current is not None and current.action == "wait":
            foresight.begin(machine, upcoming, notices)
    if machine.phase != Phase.MAINTENANCE:
        return
    if asks.take_reconcile():
        foresight.finish(machine, "ended by `reconcile`: health checks resume")
        return
    window = _redeploy_window(machine)
    if window == "":
        await asks.until_deleted(_plan(machine, azure))
        return
    if window == "planned":
        await _until_window_opens(machine, asks)
        return
    if _redeploy_now(machine):
        await asks.until_deleted(_redeploy(machine, azure))
        return
    await _wait(machine, asks)


async def _preempted(machine: Machine, azure: AzureCalls, notices: list[Notice]) -> None:
    """A pool's Spot machine whose eviction Azure announced: the offerings memory learns that Azure takes this
    offering back first, then the pool starts the replacement, which so takes another offering. With no other
    offering to take, the memory is not told: the replacement takes the same one rather than wait."""
    for notice in foresight.preemptions(machine, notices):
        told = len(offerings_of(machine.state.spec)) > 1 and await fallback.spot_evicted(
            machine, azure, f"Spot eviction announced ({notice.id})")
        foresight.tell_pool_of_preemption(machine, notice, told)


def _redeploy_window(machine: Machine) -> str | None:
    """A redeploy's progress through Azure's self-service window (Maintenance.window); None: not a redeploy."""
    maintenance = machine.state.status.maintenance
    return maintenance.window if maintenance is not None and maintenance.action == RepairAction.REDEPLOY.value \
        else None


async def _plan(machine: Machine, azure: AzureCalls) -> None:
    """Read the VM's self-service window: the redeploy waits for it when it ends by the deadline, else goes at once
    (as when the VM cannot be read: Azure redeploys it at its deadline anyway)."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None
    try:
        shown = (await azure.find_vm()).vm_state.redeploy_window
    except ActivityError as err:
        machine.log.warning(f"could not read the VM's maintenance window: {error_text(err)}")
        shown = None
    window = shown.to_redeploy_in(maintenance.notice) if shown is not None else None
    if window is None or window.start is None or window.end is None:
        machine.state.status.maintenance = maintenance.model_copy(update={"window": "none"})
        return
    # Shown only: the timer, not this reading of the clock, decides when it redeploys.
    planned = max(window.start, workflow.now())
    machine.state.status.maintenance = maintenance.model_copy(update={"window": "planned", "planned": planned})
    machine.operation(Stage.MAINTENANCE, OperationState.PROCESSING,
                      f"{maintenance.notice.headline()}: redeploy planned at {planned:%Y-%m-%d %H:%M:%S} UTC, inside "
                      f"Azure's self-service maintenance window ({window.start:%Y-%m-%d %H:%M:%S} to "
                      f"{window.end:%Y-%m-%d %H:%M:%S} UTC), before its deadline")


async def _until_window_opens(machine: Machine, asks: Asks) -> None:
    """A timer until the self-service window opens (holding no lock); newer notices or an operator cut it short."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None and maintenance.planned is not None
    opens = Deadline(maintenance.planned, "maintenance: Azure's self-service window opens")
    await workflow.wait_condition(lambda: opens.passed or asks.news() is not None or asks.requested())
    if not opens.passed:
        opens.cancel()
        return
    current = machine.state.status.maintenance
    assert current is not None
    machine.state.status.maintenance = current.model_copy(update={"window": "open"})
    machine.operation(Stage.MAINTENANCE, OperationState.PROCESSING,
                      f"{current.notice.headline()}: Azure's self-service maintenance window is open")


def _redeploy_now(machine: Machine) -> bool:
    """In Maintenance for a redeploy that may be taken now (not a pool's machine, or its pool allowed it)."""
    maintenance = machine.state.status.maintenance
    return maintenance is not None and maintenance.action == RepairAction.REDEPLOY.value and _pool_allows(machine)


async def _wait(machine: Machine, asks: Asks) -> None:
    """Wait in Maintenance, holding no lock: for the pool's leave to redeploy, or the paused wait's end (a timer).
    Returns when that came, newer notices arrived or an operator asked for something."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None
    if maintenance.action == RepairAction.REDEPLOY.value:
        await workflow.wait_condition(lambda: _allowed(machine) or asks.news() is not None or asks.requested())
        return
    assert maintenance.until is not None
    end = Deadline(maintenance.until, "maintenance: health checks paused")
    await workflow.wait_condition(lambda: end.passed or asks.news() is not None or asks.requested())
    if end.passed:
        foresight.finish(machine, "its announced end has passed: health checks resume")
    else:
        end.cancel()


def _allowed(machine: Machine) -> bool:
    maintenance = machine.state.status.maintenance
    return maintenance is not None and maintenance.allowed


def _pool_allows(machine: Machine) -> bool:
    """A pool's machine redeploys only once its pool allows it, as a redeploy of the repair ladder (max_replacements
    at a time): asked once, the answer carried in the status."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None
    if machine.pool_notices.pool_id is None or maintenance.allowed:
        return True
    if not maintenance.held:
        hold = f"redeploy waits for pool {machine.state.spec.pool} to allow it (max_replacements)"
        machine.state.status.maintenance = maintenance.model_copy(update={"held": hold})
        machine.pool_notices.repair_wanted(RepairAction.REDEPLOY.value)
        machine.operation(Stage.MAINTENANCE, OperationState.PROCESSING, f"{maintenance.notice.headline()}: {hold}")
    return False


async def _redeploy(machine: Machine, azure: AzureCalls) -> None:
    """Azure's redeploy, now: a new host, the same disks and NIC; Running again after it."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None
    machine.operation(Stage.MAINTENANCE, OperationState.PROCESSING,
                      f"{maintenance.notice.headline()}: redeploying now, ahead of Azure (a new host, the same disks)")
    try:
        vm = await azure.redeploy_vm()
    except ActivityError as err:
        # Azure will redeploy it at its deadline anyway: watched as usual meanwhile, the notice not acted on again.
        machine.operation(Stage.MAINTENANCE, OperationState.FAILED, "redeploy ahead of Azure failed; Azure redeploys "
                          "it at its deadline", error=error_text(err), retry_in=policies.SHORTEST_TIMER)
        foresight.finish(machine, "redeploy failed: left to Azure")
        return
    machine.vm_observed(vm)
    foresight.finish(machine, f"redeployed ahead of Azure on {workflow.now():%Y-%m-%d %H:%M:%S} UTC, data disks kept")
