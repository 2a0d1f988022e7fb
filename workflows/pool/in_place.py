"""A template change every machine takes in place (models/pool_in_place.py): sent to the machines of the old
revision as their own `update_spec` (update_pool_machines, in batches), instead of a rollout that replaces them.

A machine that took it moves to the new revision; one that refused it (being created with other fields, deleted
meanwhile) keeps the old revision, and the rollout that follows replaces it as for any other template change.
The loop applies it before deciding anything else, so no machine is replaced for a change it could take.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName
    from models.pool_io import InPlaceInput, InPlaceOutcome, MachineInZone

from workflows import policies
from workflows.pool.book import PoolBook, names_of
from workflows.pool.plan import counted
from workflows.pool.state import PoolState

_AT_ONCE = 100  # machines per update_pool_machines call, so one answer stays small
# Each machine's update waits for its own Azure calls (a tag PATCH per resource), paced fleet-wide.
_BATCH_TIMEOUT = timedelta(minutes=30)
_BATCH_HEARTBEAT = timedelta(minutes=2)


async def _send(state: PoolState, names: list[MachineInZone]) -> list[InPlaceOutcome]:
    inp = InPlaceInput(pool=state.spec.name, resource_group=state.spec.resource_group,
                       template=state.spec.template.as_input(), machines=names)
    return await workflow.execute_activity(
        ActivityName.UPDATE_POOL_MACHINES, inp, result_type=list[InPlaceOutcome],
        start_to_close_timeout=_BATCH_TIMEOUT, heartbeat_timeout=_BATCH_HEARTBEAT,
        retry_policy=policies.READ_RETRY, summary=f"Update {names_of([m.name for m in names])} in place")


async def apply_in_place(state: PoolState, book: PoolBook) -> None:
    change = state.in_place
    assert change is not None
    machines = [m for m in state.machines if m.revision == change.from_revision and counted(m)]
    applied, refused = [], []
    for start in range(0, len(machines), _AT_ONCE):
        batch = [MachineInZone(name=m.name, zone=m.zone) for m in machines[start:start + _AT_ONCE]]
        try:
            outcomes = await _send(state, batch)
        except ActivityError as err:  # the machines keep the old revision: the rollout replaces them
            outcomes = [InPlaceOutcome(name=m.name, applied=False, detail=str(err.cause or err)) for m in batch]
        if state.in_place is not change:  # another template came meanwhile: its own change decides
            return
        for outcome in outcomes:
            machine = state.machine(outcome.name)
            if outcome.applied and machine is not None:
                machine.revision = change.to_revision
                applied.append(outcome.name)
            elif not outcome.applied:
                refused.append(outcome)
    state.in_place = None
    line = f"rev {change.to_revision} ({', '.join(change.fields)}) applied in place to {len(applied)} machines"
    if refused:
        line += (f"; {len(refused)} did not take it ({refused[0].name}: {refused[0].detail[:200]}) and are "
                 "replaced by the rollout")
    book.operation("in place", line)
