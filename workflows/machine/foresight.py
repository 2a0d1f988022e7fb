"""Foresight (spec `foresight`, models/foresight.py): the machine acts on what Azure announced of its VM, before Azure
does. The fleet sweep sends the notices (`foresight`); this module decides what each asks for, and
maintenance.py acts on it:

- a Reboot or Freeze: `Maintenance` until the event is over (the sweep says it completed, or its announced end plus
  MAINTENANCE_GRACE passed, a timer), the health timeout and repair ladder paused: a planned reboot starts no repair;
- a Redeploy, or a degrading host: `Maintenance` while it redeploys itself ahead of Azure (Azure's redeploy: a new
  host, the same disks and NIC), asking its pool first as for a redeploy of its repair ladder;
- a Spot Preempt: a pool's machine tells its pool, which starts its replacement at once; the machine keeps watching
  (its eviction is then handled as without foresight); a Terminate is not acted on.

Each notice is acted on once (its id in `status.maintenance`, or `foresight_done` once over); a redeploy answers
every redeploy notice announced with its own. Deterministic.
"""

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import ValidationError

    from models.foresight import MAINTENANCE_GRACE, PAUSES_HEALTH, REDEPLOYS, Maintenance, Notice, NoticeKind, Notices
    from models.health import RepairAction
    from models.status import OperationState, Phase, Stage

from workflows.machine.bookkeeping import Machine

# At most this many acted-on notice ids are remembered (a VM has a few events at a time).
_DONE_KEPT = 20


def notices_in(args: tuple[Any, ...]) -> list[Notice] | None:
    """The `foresight` signal's notices; None when its payload does not validate (the next sweep sends it again)."""
    try:
        return Notices.model_validate((args[0] if args else None) or {}).notices
    except ValidationError as err:
        workflow.logger.warning(f"foresight signal with an invalid payload ignored ({err.error_count()} errors)")
        return None


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


def begin(machine: Machine, notice: Notice, notices: list[Notice]) -> None:
    """Enter Maintenance for `notice`, one of `notices`: the health timeout and the repair ladder pause (they start
    afresh after)."""
    now = workflow.now()
    if notice.kind in REDEPLOYS:
        # One redeploy leaves the host that every redeploy notice of this batch is about (a degrading host's event
        # and its annotation): the others count as acted on from now, so a sweep that read the old host meanwhile
        # sends the machine nowhere.
        _acted_on(machine, *(n.id for n in notices if n.kind in REDEPLOYS and n.id != notice.id))
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
    _acted_on(machine, maintenance.notice.id)
    machine.set_phase(Phase.RUNNING)
    machine.operation(Stage.MAINTENANCE, OperationState.SUCCESSFUL, f"{maintenance.notice.headline()}: {done}")


def preemptions(machine: Machine, notices: list[Notice]) -> list[Notice]:
    """Spot preemptions announced and not told yet, of a pool's machine: its pool starts its replacement at once. A
    standalone machine has nobody to tell: its eviction is handled as without foresight."""
    if machine.pool_notices.pool_id is None:
        return []
    return [n for n in notices if n.kind == NoticeKind.PREEMPT and not n.over()
            and n.id not in machine.state.foresight_done]


def tell_pool_of_preemption(machine: Machine, notice: Notice, memory_told: bool) -> None:
    """The pool starts this machine's replacement now (workflows/pool/plan.py) instead of after the eviction; once
    per event. `memory_told`: the offerings memory skips this offering meanwhile, so the replacement takes another."""
    machine.pool_notices.preempt_announced(notice.id)
    _acted_on(machine, notice.id)
    elsewhere = ", on another offering" if memory_told else ""
    machine.operation(Stage.MAINTENANCE, OperationState.SUCCESSFUL, f"Azure announced {notice.headline()}: pool "
                      f"{machine.state.spec.pool} told, it starts a replacement now{elsewhere}")


def _acted_on(machine: Machine, *ids: str) -> None:
    """These notices are not to be acted on again while the sweep reports them (`foresight_done`)."""
    done = machine.state.foresight_done
    machine.state.foresight_done = [*done, *(i for i in ids if i not in done)][-_DONE_KEPT:]


def still_announced(machine: Machine, notices: list[Notice]) -> None:
    """Forget acted-on ids the sweep no longer reports (a later degradation under the same name acts again)."""
    ids = {n.id for n in notices}
    machine.state.foresight_done = [i for i in machine.state.foresight_done if i in ids]


def heard(machine: Machine, notices: list[Notice]) -> None:
    """The sweep's latest notices, for a machine in Maintenance: the event it waits on is over when the sweep says
    it completed or no longer reports it."""
    maintenance = machine.state.status.maintenance
    if maintenance is None or maintenance.done:
        return
    same = next((n for n in notices if n.id == maintenance.notice.id), None)
    if maintenance.action == "wait" and (same is None or same.over()):
        finish(machine, "Azure reports it over: health checks resume")
