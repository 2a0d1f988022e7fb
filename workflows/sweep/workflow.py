"""FleetSweep: one look at the whole fleet (run every minute by the Schedule `azmc-fleet-sweep`).

1. survey_fleet: one paged Resource Graph query + one paged visibility listing, joined by owner tag.
2. Drift: each open machine whose VM Azure shows missing, Failed, stopped or deallocated, or Unavailable in
   Resource Health for Azure's own reasons while Running (or running again while the machine is Unknown,
   Available again while Unhealthy) gets `reconcile` `{"check_only": true, "reason": ...}`; it then reads its
   VM and health signals itself and acts, its repair waits kept.
   Foresight: each open machine whose VM publishes its scheduled events gets `foresight` with what Azure announced
   of it (a reboot, a redeploy, a degrading host, a preemption: models/foresight.py), read in the same query.
3. Orphans: this installation's resources whose machine workflow is not open. check_orphan describes
   the workflow and GETs each resource right before; what is ours, still there and orphaned for longer
   than the grace is deleted with the driver's delete activities: the VM first, then NICs and disks side
   by side (one that fails never stops the others; the next sweep tries again). More deletions than the
   safety cap: none at all, and the report says why.
4. Marks: an orphan whose owner workflow Temporal does not know is marked when first seen (the tag
   azmc-orphan-seen, models/sweep.py), so its grace counts from then; a machine whose workflow is open
   again loses its marks. A dry run marks nothing.
The report (counts, reasons, requests) is the result, the current details, a log line and metrics.
"""

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName, DeleteResourceInput, DeleteVmInput, MachineRef
    from models.durations import CHECK_BOUNDS
    from models.foresight import MachineNotices, Notices
    from models.requests import ReconcileRequest
    from models.sweep import (
        SWEEP_WORKFLOW,
        Drift,
        FleetSurvey,
        OrphanCheckInput,
        OrphanMachine,
        OrphanMarkInput,
        OrphanVerdict,
        Outdated,
        OutdatedQuery,
        Skipped,
        SkipReason,
        SweepInput,
        SweepReport,
    )
    from models.temporal_api import FORESIGHT_SIGNAL, RECONCILE_SIGNAL, UPGRADE_SIGNAL
    from models.undecodable import Undecodable
    from models.validation import describe_validation_error

from workflows import policies
from workflows.azure_calls import error_text
from workflows.errors import invalid_input
from workflows.refusals import REFUSED_AT_START, refuse_input, refused_at_start
from workflows.sweep.metrics import record_metrics

SURVEY_TIMEOUT = timedelta(minutes=5)
# A sweep retries little: the next one (a minute later) is the real retry, and sweeps never overlap.
SWEEP_RETRY = RetryPolicy(initial_interval=timedelta(seconds=2), maximum_interval=timedelta(seconds=20),
                          maximum_attempts=3)


@workflow.defn(name=SWEEP_WORKFLOW)
class FleetSweep:
    def __init__(self) -> None:
        self._report = SweepReport()

    @workflow.query(name="report")
    def report(self) -> SweepReport:
        return self._report

    @workflow.run
    async def run(self, *args: Any) -> SweepReport:
        inp = _sweep_input(args)
        self._show("surveying the fleet")
        survey: FleetSurvey = await workflow.execute_activity(
            ActivityName.SURVEY_FLEET, result_type=FleetSurvey, start_to_close_timeout=SURVEY_TIMEOUT,
            retry_policy=SWEEP_RETRY, summary="Survey the fleet: Resource Graph + open machine workflows")
        self._update(machines_seen=survey.machines_seen, phases=survey.phases, drifted=len(survey.drift),
                     orphans_found=sum(o.resource_count for o in survey.orphans), graph_pages=survey.graph_pages,
                     visibility_pages=survey.visibility_pages, workflow_describes=survey.workflow_describes,
                     arm_requests=survey.arm_requests)
        if not inp.dry_run:
            await self._signal(survey.drift)
            await self._foresee(survey.notices)
            await self._wake_outdated(inp.max_upgrade_signals)
        verdicts = await asyncio.gather(*(self._check(orphan, inp) for orphan in survey.orphans))
        for verdict in verdicts:
            self._add(skipped=verdict.skipped)
        self._update(arm_requests=self._report.arm_requests + sum(v.arm_requests for v in verdicts))
        if not inp.dry_run:
            await self._mark(survey, verdicts)
        deletable = [(orphan, v) for orphan, v in zip(survey.orphans, verdicts, strict=True) if v.deletable]
        count = sum(len(v.deletable) for _, v in deletable)
        if inp.dry_run:
            self._add(would_delete=[f"{r} ({v.workflow_id})" for _, v in deletable for r in v.deletable])
        elif count > inp.max_orphan_deletions:
            self._update(capped=f"{count} orphaned resources to delete, more than the safety cap of "
                                f"{inp.max_orphan_deletions} (--max-orphan-deletions): deleted none; check them "
                                "with `azmc orphans`, then raise the cap or delete them yourself")
            self._add(skipped=[Skipped(resource=r, reason=SkipReason.OVER_CAP) for _, v in deletable
                               for r in v.deletable])
        else:
            self._show(f"deleting {count} orphaned resources")
            await asyncio.gather(*(self._collect(orphan, v) for orphan, v in deletable))
        self._show("done")
        workflow.logger.info("fleet sweep: %s", self._report.summary())
        record_metrics(self._report)
        return self._report

    async def _signal(self, drift: list[Drift]) -> None:
        async def one(found: Drift) -> None:
            try:
                # check_only: the sweep is not an operator, so a machine's repair ladder keeps its waits.
                await workflow.get_external_workflow_handle(found.workflow_id).signal(
                    RECONCILE_SIGNAL, ReconcileRequest(check_only=True, reason=found.reason).model_dump())
                self._add(signalled=[found])
            except Exception as err:  # closed since the listing: nothing to reconcile
                workflow.logger.info("reconcile not sent to %s: %s", found.workflow_id, err)

        await asyncio.gather(*(one(found) for found in drift))

    async def _foresee(self, found: list[MachineNotices]) -> None:
        """Each machine whose VM publishes its events is sent what Azure announced of it (models/foresight.py), every
        sweep while it lasts: the machine acts once per notice, and ends a wait when the notice is over."""
        async def one(machine: MachineNotices) -> None:
            try:
                await workflow.get_external_workflow_handle(machine.workflow_id).signal(
                    FORESIGHT_SIGNAL, Notices(notices=machine.notices).model_dump(mode="json"))
                self._add(foresight_signalled=[f"{machine.workflow_id}: {n.headline()}" for n in machine.notices])
            except Exception as err:  # closed since the listing: nothing to foresee
                workflow.logger.info("foresight not sent to %s: %s", machine.workflow_id, err)

        await asyncio.gather(*(one(machine) for machine in found))

    async def _wake_outdated(self, limit: int) -> None:
        """After a deploy: `upgrade` to at most `limit` runs on an older version than this sweep's (a Schedule
        starts each sweep on the current version). An unversioned worker (no deployment name) has none to wake."""
        version = workflow.info().get_current_deployment_version()
        if version is None or not version.deployment_name or limit == 0:
            return
        query = OutdatedQuery(deployment_name=version.deployment_name, build_id=version.build_id, limit=limit)
        found: Outdated = await workflow.execute_activity(
            ActivityName.LIST_OUTDATED, query,
            result_type=Outdated, start_to_close_timeout=policies.READ_TIMEOUT, retry_policy=SWEEP_RETRY,
            summary=f"List runs on a version older than {version.build_id}")

        async def one(workflow_id: str) -> None:
            try:
                await workflow.get_external_workflow_handle(workflow_id).signal(UPGRADE_SIGNAL)
                self._add(upgrade_signalled=[workflow_id])
            except Exception as err:  # closed since the listing: nothing to move
                workflow.logger.info("upgrade not sent to %s: %s", workflow_id, err)

        await asyncio.gather(*(one(workflow_id) for workflow_id in found.workflow_ids))
        self._update(upgrades_left=found.more)

    async def _check(self, orphan: OrphanMachine, inp: SweepInput) -> OrphanVerdict:
        return await workflow.execute_activity(
            ActivityName.CHECK_ORPHAN, OrphanCheckInput(orphan=orphan, orphan_grace=inp.orphan_grace,
                                                        now=workflow.now()),
            result_type=OrphanVerdict, start_to_close_timeout=policies.READ_TIMEOUT,
            heartbeat_timeout=policies.SHORT_HEARTBEAT, retry_policy=SWEEP_RETRY,
            summary=f"Re-check orphan {orphan.workflow_id}: workflow and {orphan.resource_count} resources")

    async def _mark(self, survey: FleetSurvey, verdicts: list[OrphanVerdict]) -> None:
        """Mark the orphans seen for the first time (their grace counts from this sweep); unmark the machines
        whose workflow is open again. One that fails is marked by the next sweep: nothing of it goes before."""
        marks = [(v.to_mark, v.first_seen) for v in verdicts if v.to_mark is not None]
        marks += [(machine, None) for machine in survey.marked_open]
        if not marks:
            return

        async def one(orphan: OrphanMachine, seen_at: datetime | None) -> None:
            what = "Mark orphan" if seen_at else "Remove the orphan mark of"
            try:
                changed: list[str] = await workflow.execute_activity(
                    ActivityName.MARK_ORPHAN, OrphanMarkInput(orphan=orphan, seen_at=seen_at), result_type=list[str],
                    start_to_close_timeout=policies.VM_TIMEOUT, heartbeat_timeout=policies.OPERATION_HEARTBEAT,
                    retry_policy=SWEEP_RETRY, summary=f"{what} {orphan.workflow_id}: {orphan.resource_count} resources")
            except ActivityError as err:
                workflow.logger.warning("fleet sweep: %s %s failed: %s", what.lower(), orphan.workflow_id,
                                        error_text(err))
                return
            self._add(**{"marked" if seen_at else "unmarked": [f"{r} ({orphan.workflow_id})" for r in changed]})

        await asyncio.gather(*(one(orphan, seen_at) for orphan, seen_at in marks))

    async def _collect(self, orphan: OrphanMachine, verdict: OrphanVerdict) -> None:
        """The VM first (its NIC and OS disk may go with it), then NICs and disks side by side, then public IPs."""
        ref = MachineRef(resource_group=orphan.resource_group, name=orphan.name)
        owner = orphan.workflow_id
        if verdict.vm:
            await self._delete(f"VM {verdict.vm}", owner, ActivityName.DELETE_VM,
                               DeleteVmInput(machine=ref, owner_workflow_id=owner), policies.VM_TIMEOUT)
        await asyncio.gather(
            *(self._delete(f"NIC {name}", owner, ActivityName.DELETE_NIC,
                           DeleteResourceInput(machine=ref, name=name, owner_workflow_id=owner), policies.NIC_TIMEOUT)
              for name in verdict.nics),
            *(self._delete(f"disk {name}", owner, ActivityName.DELETE_DISK,
                           DeleteResourceInput(machine=ref, name=name, owner_workflow_id=owner), policies.DISK_TIMEOUT)
              for name in verdict.disks))
        # Public IPs once the NICs that held them are gone (Azure refuses before).
        await asyncio.gather(*(self._delete(
            f"public IP {name}", owner, ActivityName.DELETE_PUBLIC_IP,
            DeleteResourceInput(machine=ref, name=name, owner_workflow_id=owner), policies.NIC_TIMEOUT)
            for name in verdict.public_ips))

    async def _delete(self, resource: str, owner: str, name: ActivityName, arg: Any, limit: timedelta) -> None:
        try:
            await workflow.execute_activity(
                name, arg, start_to_close_timeout=limit, heartbeat_timeout=policies.OPERATION_HEARTBEAT,
                retry_policy=SWEEP_RETRY, summary=f"Delete orphaned {resource} of {owner}")
        except ActivityError as err:
            self._add(skipped=[Skipped(resource=resource, reason=SkipReason.DELETE_FAILED, detail=error_text(err))])
            return
        self._add(deleted=[f"{resource} ({owner})"])

    def _update(self, **fields: Any) -> None:
        self._report = self._report.model_copy(update=fields)

    def _add(self, **lists: Any) -> None:
        self._update(**{key: [*getattr(self._report, key), *items] for key, items in lists.items()})

    def _show(self, step: str) -> None:
        r = self._report
        lines = [f"**Fleet sweep** - {step}", "", r.summary()]
        if r.capped:
            lines += ["", f"**Safety cap:** {r.capped}"]
        lines += [f"- deleted {item}" for item in r.deleted[:20]]
        lines += [f"- would delete {item}" for item in r.would_delete[:20]]
        lines += [f"- marked seen orphaned {item}" for item in r.marked[:20]]
        lines += [f"- mark removed (workflow open again) {item}" for item in r.unmarked[:20]]
        lines += [f"- skipped {s.resource}: {s.reason.value} {s.detail}".rstrip() for s in r.skipped[:20]]
        lines += [f"- reconcile {d.workflow_id}: {d.reason}" for d in r.signalled[:20]]
        lines += [f"- upgrade {workflow_id}: on an older version" for workflow_id in r.upgrade_signalled[:20]]
        lines += [f"- foresight {item}" for item in r.foresight_signalled[:20]]
        workflow.set_current_details("\n".join(lines))


def _sweep_input(args: Sequence[Any]) -> SweepInput:
    """None, nothing or a SweepInput (plain JSON, its durations within their bounds); anything else fails the
    sweep at once, naming why: it deletes nothing, and decoded by the SDK it would fail the task again and again."""
    if refused_at_start():
        raise invalid_input(REFUSED_AT_START)
    if len(args) > 1:
        raise invalid_input(f"input: expected one SweepInput, got {len(args)} values")
    value = args[0] if args else None
    if isinstance(value, Undecodable):
        raise invalid_input(refuse_input(value, "input"))
    if value is None:
        return SweepInput()
    if not isinstance(value, dict):
        raise invalid_input(f"input: expected a JSON object (a SweepInput), got {type(value).__name__}")
    try:
        return SweepInput.model_validate(value, context=CHECK_BOUNDS)
    except ValidationError as err:
        raise invalid_input(describe_validation_error(err, "SweepInput")) from None
