"""The Temporal Schedule `azmc-fleet-sweep`: FleetSweep every `sweep_interval`, never two at once.

Created or updated by `azmc worker --ensure-schedule` (any number of workers may: the last one's
settings win, and they are the same settings), `azmc schedule ensure`, and `azmc dev`. The UI's
Schedules page and `temporal schedule describe --schedule-id azmc-fleet-sweep` show its runs.
"""

from datetime import timedelta

from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleState,
    ScheduleUpdate,
    ScheduleUpdateInput,
)

from models.sweep import SCHEDULE_ID, SWEEP_WORKFLOW, SweepInput
from workers.settings import Settings

# A sweep stuck longer than this is ended, so the schedule (which skips while one runs) goes on.
SWEEP_RUN_LIMIT = timedelta(hours=1)


def sweep_schedule(settings: Settings) -> Schedule:
    return Schedule(
        action=ScheduleActionStartWorkflow(
            SWEEP_WORKFLOW,
            SweepInput(orphan_grace=settings.orphan_grace, max_orphan_deletions=settings.max_orphan_deletions,
                       max_upgrade_signals=settings.max_upgrade_signals),
            id=SCHEDULE_ID,  # Temporal appends the scheduled time: azmc-fleet-sweep-2026-12-01T01:02:00Z
            task_queue=settings.task_queue,
            execution_timeout=SWEEP_RUN_LIMIT,
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=settings.sweep_interval)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
        state=ScheduleState(note="azmc fleet sweep: drift -> reconcile, orphans collected after the grace"),
    )


async def ensure_sweep_schedule(client: Client, settings: Settings) -> str:
    """Create the schedule, or bring an existing one to these settings. Returns "created" or "updated"."""
    schedule = sweep_schedule(settings)
    try:
        await client.create_schedule(SCHEDULE_ID, schedule)
        return "created"
    except ScheduleAlreadyRunningError:
        pass

    def update(current: ScheduleUpdateInput) -> ScheduleUpdate:
        # Keep an operator's pause: only the action, the interval and the overlap policy are ours.
        kept = current.description.schedule.state
        return ScheduleUpdate(schedule=Schedule(action=schedule.action, spec=schedule.spec,
                                                policy=schedule.policy, state=kept))

    await client.get_schedule_handle(SCHEDULE_ID).update(update)
    return "updated"
