"""A pool's new life takes back the machines its earlier life started, before it creates any.

A pool's workflow that ended without deleting its machines (terminated, failed) leaves them running: they were
started with ParentClosePolicy ABANDON, so that a pool continuing as new never takes them down. When the pool is
applied again, its first run asks for the open machine workflows its workflow id started on its task queue
(adopt_pool_machines, activities/pool/adoption.py: a visibility listing, each confirmed by a describe) and counts
them against `replicas` as its own: a machine of another template is rolled as any machine of an older revision,
one that differs only in what it takes in place is sent the template in place. A machine too new for the listing
tells the pool its next phase, as every machine does (machine/pool_notice.py): a notice from a machine the pool does
not know is a name to adopt, checked the same way, never a machine taken on its word.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName
    from models.naming import is_pool_machine_name
    from models.pool import PoolMachine
    from models.pool_io import AdoptedMachine, Adoption, AdoptionInput
    from models.status import Phase

from workflows import policies
from workflows.azure_calls import error_text
from workflows.pool.book import PoolBook, names_of
from workflows.pool.state import PoolState

# Each machine is described and queried, and one that takes the template in place waits for its own Azure calls.
_TIMEOUT, _HEARTBEAT = timedelta(minutes=30), timedelta(minutes=2)
_FIRST_WAIT, _LONGEST_WAIT = timedelta(seconds=10), timedelta(minutes=5)
STRANGERS_KEPT = 20  # names from notices waiting to be checked; a flood of spoofed names costs no more
# Phases an adopted machine may be in before it ever ran (any other: it ran, and is repaired when not Running).
_NEW = (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF)


def stranger(state: PoolState, name: str) -> bool:
    """A notice named a machine the pool does not know: kept to be checked when it may be the pool's (its name is
    one the pool gives); False when it is not kept (the notice is ignored)."""
    if not is_pool_machine_name(state.spec.name, name):
        return False
    if name not in state.strangers:
        if len(state.strangers) >= STRANGERS_KEPT:
            return False
        state.strangers = [*state.strangers, name]
    return True


def _record(state: PoolState, found: AdoptedMachine) -> PoolMachine:
    machine = PoolMachine(name=found.name, revision=state.revision if found.current else found.revision,
                          phase=found.phase, since=found.since if found.preserved and found.since else workflow.now(),
                          preserved=found.preserved, deleting=found.phase == Phase.TERMINATING, zone=found.zone,
                          waiting_for_quota=found.waiting_for_quota, ran=found.phase not in _NEW)
    state.machines.append(machine)
    return machine


async def _ask(state: PoolState, names: list[str]) -> Adoption:
    info = workflow.info()
    inp = AdoptionInput(pool_workflow_id=info.workflow_id, task_queue=info.task_queue,
                        resource_group=state.spec.resource_group, pool=state.spec.name,
                        template=state.spec.template.as_input(), known=[m.name for m in state.machines], names=names)
    what = names_of(names) if names else f"machines of pool {state.spec.name} its earlier life started"
    return await workflow.execute_activity(
        ActivityName.ADOPT_POOL_MACHINES, inp, result_type=Adoption, start_to_close_timeout=_TIMEOUT,
        heartbeat_timeout=_HEARTBEAT, retry_policy=policies.READ_RETRY, summary=f"Adopt {what}")


async def adopt(state: PoolState, book: PoolBook) -> None:
    """Adopt what a new life finds (state.adoption_due: until it could look, or the pool is deleted) or the names
    notices gave (state.strangers: asked once)."""
    wait = _FIRST_WAIT
    while True:
        names = [] if state.adoption_due else list(state.strangers)
        try:
            found = await _ask(state, names)
            break
        except ActivityError as err:
            why = error_text(err)
        if names:  # the machine says again with its next phase
            for name in names:
                book.ignore(f"a notice named {name}: could not check whether it is the pool's: {why}")
            state.strangers = [name for name in state.strangers if name not in names]
            return
        if wait == _FIRST_WAIT:
            book.operation("adopt", f"could not look for machines its earlier life started, creating none until it "
                           f"could: {why}")
        book.log(f"could not look for machines to adopt, again in {wait}: {why}")
        try:
            await workflow.wait_condition(lambda: state.delete_request is not None, timeout=wait)
            return  # deleted meanwhile: the deletion reads Azure by the pool's tag for what it did not find
        except TimeoutError:
            wait = min(wait * 2, _LONGEST_WAIT)
    adopted = [_record(state, m) for m in found.adopted if state.machine(m.name) is None]
    if adopted:
        other = [m for m in adopted if m.revision != state.revision]
        book.operation("adopt", f"{names_of([m.name for m in adopted])}: started by the pool's earlier life, "
                       "counted as its own" + (f"; {len(other)} of another template, rolled" if other else ""))
    for line in found.refused:
        if names:  # named by a notice: the notice is what the pool ignores
            book.ignore(f"a notice named {line}: not one of the pool's machines")
        else:
            book.operation("adopt", f"not adopted: {line}")
    if not names:
        book.log(f"adoption: {found.listed} open machine workflows listed under the pool, {len(adopted)} adopted")
    state.strangers = [name for name in state.strangers if name not in names and state.machine(name) is None]
    state.adoption_due = False
