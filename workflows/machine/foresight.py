"""Foresight (spec `foresight`, models/foresight.py): the machine acts on what Azure announced of its VM, before Azure
does. The fleet sweep sends the notices (`foresight`); this module decides and acts:

- a Reboot or Freeze: `Maintenance` until the event is over (the sweep says it completed, or its announced end plus
  MAINTENANCE_GRACE passed, a timer), the health timeout and repair ladder paused: a planned reboot starts no repair;
- a Redeploy, or a degrading host: `Maintenance` while it redeploys itself at once (Azure's redeploy: a new host, the
  same disks and NIC), asking its pool first as for a redeploy of its repair ladder (max_replacements paces them);
- a Spot Preempt: a pool's machine tells its pool, which starts its replacement at once; the machine keeps watching
  (its eviction is then handled as without foresight); a Terminate is not acted on.

Each notice is acted on once (its id in `status.maintenance`, or `foresight_done` once over). Deterministic; the
clock sets only the length of the wait's timer.
"""

from collections.abc import Callable

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.foresight import MAINTENANCE_GRACE, PAUSES_HEALTH, REDEPLOYS, Maintenance, Notice, NoticeKind
    from models.health import RepairAction
    from models.status import OperationState, Phase, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text
from workflows.deadlines import Deadline
from workflows.machine.bookkeeping import Machine

# At most this many acted-on notice ids are remembered (a VM has a few events at a time).
_DONE_KEPT = 20


def _priority(notice: Notice) -> int:
    return 0 if notice.kind in REDEPLOYS else 1 if notice.kind in PAUSES_HEALTH else 2


def next_notice(machine: Machine, notices: list[Notice]) -> Notice | None:
    """The notice to act on now: a redeploy before a pause; none already acted on, over, or shown only."""
    current = machine.state.status.maintenance
    acting = current.notice.id if current is not None and not current.done else ""
    done = set(machine.state.foresight_done)
    fresh = [n for n in notices if not n.over() and n.id not in done and n.id != acting
             and (n.kind in REDEPLOYS or n.kind in PAUSES_HEALTH)]
    return min(fresh, key=_priority) if fresh else None


def begin(machine: Machine, notice: Notice) -> None:
    """Enter Maintenance for `notice`: the health timeout and the repair ladder pause (they start afresh after)."""
    now = workflow.now()
    if notice.kind in REDEPLOYS:
        maintenance = Maintenance(notice=notice, action=RepairAction.REDEPLOY.value, since=now)
        what = "redeploying ahead of Azure, keeping its disks"
    else:
        start = notice.not_before if notice.not_before is not None else now
        maintenance = Maintenance(notice=notice, action="wait", since=now,
                                  until=max(start, now) + notice.lasts() + MAINTENANCE_GRACE)
        what = "health checks paused until it is over"
    machine.state.status.maintenance = maintenance
    machine.healing.nothing_to_heal()
    machine.set_phase(Phase.MAINTENANCE)
    machine.log.warning(f"Azure announced {notice.headline()}: {what}")
    machine.operation(Stage.MAINTENANCE, OperationState.PROCESSING, f"Azure announced {notice.headline()}: {what}")


def allow(machine: Machine, action: str) -> bool:
    """The pool allowed `action`: True when this machine's maintenance waited for it."""
    maintenance = machine.state.status.maintenance
    if maintenance is None or maintenance.done or maintenance.action != action or not maintenance.held:
        return False
    machine.state.status.maintenance = maintenance.model_copy(update={"allowed": True})
    return True


def finish(machine: Machine, done: str) -> None:
    """Maintenance is over: Running again, the next health check reads the VM afresh."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None
    machine.state.status.maintenance = maintenance.model_copy(update={"done": done, "held": ""})
    machine.state.foresight_done = [*machine.state.foresight_done, maintenance.notice.id][-_DONE_KEPT:]
    machine.set_phase(Phase.RUNNING)
    machine.operation(Stage.MAINTENANCE, OperationState.SUCCESSFUL, f"{maintenance.notice.headline()}: {done}")


def tell_pool_of_preemption(machine: Machine, notices: list[Notice]) -> None:
    """A Spot preemption announced: a pool's machine tells its pool at once, which starts its replacement now
    (workflows/pool/plan.py) instead of after the eviction; once per event. A standalone machine has nobody to tell:
    its eviction is handled as without foresight."""
    pool = machine.state.spec.pool
    if machine.pool_notices.pool_id is None:
        return
    for notice in notices:
        if notice.kind == NoticeKind.PREEMPT and not notice.over() and notice.id not in machine.state.foresight_done:
            machine.pool_notices.preempt_announced(notice.id)
            machine.state.foresight_done = [*machine.state.foresight_done, notice.id][-_DONE_KEPT:]
            machine.operation(Stage.MAINTENANCE, OperationState.SUCCESSFUL,
                              f"Azure announced {notice.headline()}: pool {pool} told, it starts a replacement now")


def still_announced(machine: Machine, notices: list[Notice]) -> None:
    """Forget acted-on ids the sweep no longer reports (a later degradation under the same name acts again)."""
    ids = {n.id for n in notices}
    machine.state.foresight_done = [i for i in machine.state.foresight_done if i in ids]


def redeploy_now(machine: Machine) -> bool:
    """In Maintenance for a redeploy that may be taken now (not a pool's machine, or its pool allowed it)."""
    maintenance = machine.state.status.maintenance
    return maintenance is not None and maintenance.action == RepairAction.REDEPLOY.value and _pool_allows(machine)


async def wait(machine: Machine, news: Callable[[], list[Notice] | None], requested: Callable[[], bool]) -> None:
    """Wait in Maintenance, holding no lock (an `update_spec` goes through meanwhile): for the pool's leave to
    redeploy, or the paused wait's end (a timer). Returns when that came, a newer notice arrived (`news`: the
    latest notices, None while none came) or an operator asked for something (`requested`)."""
    maintenance = machine.state.status.maintenance
    assert maintenance is not None
    if maintenance.action == RepairAction.REDEPLOY.value:
        await workflow.wait_condition(lambda: _allowed(machine) or news() is not None or requested())
        return
    assert maintenance.until is not None
    end = Deadline(maintenance.until, "maintenance: health checks paused")
    await workflow.wait_condition(lambda: end.passed or news() is not None or requested())
    if end.passed:
        finish(machine, "its announced end has passed: health checks resume")
    else:
        end.cancel()


def heard(machine: Machine, notices: list[Notice]) -> None:
    """The sweep's latest notices, for a machine in Maintenance: the event it waits on is over when the sweep says
    it completed or no longer reports it."""
    maintenance = machine.state.status.maintenance
    if maintenance is None or maintenance.done:
        return
    same = next((n for n in notices if n.id == maintenance.notice.id), None)
    if maintenance.action == "wait" and (same is None or same.over()):
        finish(machine, "Azure reports it over: health checks resume")


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


async def redeploy(machine: Machine, azure: AzureCalls) -> None:
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
        finish(machine, "redeploy failed: left to Azure")
        return
    machine.vm_observed(vm)
    finish(machine, f"redeployed ahead of Azure on {workflow.now():%Y-%m-%d %H:%M:%S} UTC, data disks kept")
