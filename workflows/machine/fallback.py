"""Capacity fallback in creation: pick the offering to try, and remember what Azure refused.

Each attempt asks the shared memory (the `Offerings` workflow, through ask_offerings) which of the
machine's offerings (models/offerings.py: priority, then size, then zone) may be tried now, and tries the
first. A capacity refusal is told to the memory (report_refusal), and the next attempt starts at once with
the next offering. Only when every offering is marked does the machine wait: Pending, however long, when the
quota reading alone marks them (nothing failed); else until the earliest refusal ends, or a `reconcile`,
which tries the first offering at once whatever the memory says. A machine that stops while the memory may
hold its probe (deleted or continued as new mid-attempt, Failed) releases it (release_probes), so machines
waiting for its outcome try the offering at once instead of for PROBE_FOR.
"""

import copy
from collections.abc import Callable
from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName
    from models.durations import humanize
    from models.errors import ErrorType
    from models.inventory import Inventory
    from models.offering_claims import PROBE_FOR, Claim, ClaimRequest, probe_poll
    from models.offerings import Availability, Offering, Refusal, SkippedOffering, narrowed, offerings_of
    from models.offerings_memory import ProbeRelease, RefusalReport
    from models.prices import PricesInput, order_offerings
    from models.quota import quota_wait
    from models.refusals import SPOT_EVICTED, is_quota_refusal
    from models.reserved_room import ReservedRoomInput, reserved_first
    from models.spec import CapacityOrder, Priority
    from models.status import OfferingAttempt, OperationState, Phase, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text, error_type
from workflows.deadlines import Deadline
from workflows.machine import recovery
from workflows.machine.bookkeeping import Machine

OFFERING_ATTEMPTS_SHOWN = 10


def azure_code(err: BaseException) -> tuple[str, str]:
    """Azure's error code and message behind an activity failure (activities/errors.py puts the code in
    the ApplicationError's details); ("", "") when there is none."""
    cause = err.cause if isinstance(err, ActivityError) else err
    if not isinstance(cause, ApplicationError):
        return "", ""
    details = cause.details[0] if cause.details else None
    code = str(details.get("code") or "") if isinstance(details, dict) else ""
    return code, cause.message


def for_offering(azure: AzureCalls, offering: Offering, accelerated: bool | None = None) -> AzureCalls:
    """The machine's AzureCalls asking for exactly this offering; calls in flight are still tracked as one.
    `accelerated`: whether the offering's size supports accelerated networking (the memory's answer, None: not
    known), which a spec's accelerated_networking null takes."""
    calls = copy.copy(azure)  # shallow: shares the list of detached calls with `azure`
    calls.spec = narrowed(azure.spec, offering)
    if calls.spec.accelerated_networking is None and accelerated is not None:
        calls.spec = calls.spec.model_copy(update={"accelerated_networking": accelerated})
    return calls


def _machine_id(machine: Machine) -> str:
    return f"{machine.state.spec.resource_group}/{machine.state.spec.name}"


async def _claim(machine: Machine, azure: AzureCalls, offerings: list[Offering]) -> Claim:
    """The memory's claim; when it cannot answer (Temporal busy), the first offering: the memory saves
    attempts, it never stops a machine."""
    spec, state = azure.spec, machine.state
    request = ClaimRequest(subscription=spec.subscription, location=spec.location, offerings=offerings,
                           machine=_machine_id(machine), accelerated_networking=spec.accelerated_networking)
    held, state.may_hold_probe = state.may_hold_probe, True  # a claim interrupted in flight may have landed
    try:
        claim = await azure.short_call(
            ActivityName.ASK_OFFERINGS, request, Claim,
            f"Ask which of {len(offerings)} offerings to try (refused recently, or tried by another)")
    except ActivityError as err:
        machine.log.warning(f"the memory of refused offerings did not answer ({error_text(err)}): trying in order")
        return Claim(offering=offerings[0], availability=Availability(available=offerings))
    state.may_hold_probe = held or (claim.offering is not None and not claim.proven)
    return claim


async def _tell(machine: Machine, azure: AzureCalls, report: RefusalReport) -> Refusal | None:
    told = await azure.short_call(
        ActivityName.REPORT_REFUSAL, report, Refusal | None,
        f"Remember: {report.offering.describe()} "
        + ("worked" if report.worked else f"refused ({report.code})" if report.code else "failed"))
    machine.state.may_hold_probe = False  # the outcome ended the probe
    return told


async def release_probes(machine: Machine, azure: AzureCalls, why: str) -> None:
    """The machine stops trying (deleted, continued as new, Failed, or its attempt ended without an outcome to
    tell): the memory's probes of it end, so machines waiting for their outcome try the offerings at once.
    Nothing is sent unless the memory may hold one."""
    state = machine.state
    if not state.may_hold_probe:
        return
    state.may_hold_probe = False  # asked once: a memory that cannot answer lets the probe end by itself
    spec = azure.spec
    request = ProbeRelease(subscription=spec.subscription, location=spec.location, machine=_machine_id(machine),
                           reason=why)
    try:
        released = await azure.short_call(ActivityName.RELEASE_PROBES, request, int,
                                     f"Release this machine's tries of offerings: {why}")
    except ActivityError as err:
        machine.log.warning(f"could not release this machine's tries of offerings ({error_text(err)}): "
                            f"they end by themselves within {humanize(PROBE_FOR)}")
        return
    if released:
        machine.log.info(f"released {released} tries of offerings ({why}): machines waiting for them go on")


def _listed(skipped: list[SkippedOffering], now: datetime) -> str:
    return "; ".join(s.describe(now) for s in skipped)


async def _woken_before(delay: timedelta, requested: Callable[[], bool], clear_request: Callable[[], None],
                        deadline: Deadline) -> bool:
    """Wait `delay`, or until the deadline passed; True when a `reconcile` (requested/clear_request: creation.Wake)
    cut it short."""
    try:
        await workflow.wait_condition(lambda: requested() or deadline.passed, timeout=delay,
                                      timeout_summary="every offering refused: wait for the first to be free")
    except TimeoutError:
        return False
    if deadline.passed:
        return False
    clear_request()
    return True


async def _ordered(machine: Machine, azure: AzureCalls) -> list[Offering]:
    """The spec's offerings in the order its `capacity_order` asks, then those its capacity reservation group has
    room for first (_reserved_first)."""
    return await _reserved_first(machine, azure, await _by_capacity_order(machine, azure))


async def _reserved_first(machine: Machine, azure: AzureCalls, offerings: list[Offering]) -> list[Offering]:
    """With `capacity_reservation_group_id`: after one read of the group's instance view (models/reserved_room.py),
    the offerings it has reserved room for first; as they were when it has none, or the read fails (a full
    reservation's offering is still tried in its place: Azure over-allocates it, without the capacity SLA)."""
    machine.reserved_room = None
    group_id = azure.spec.capacity_reservation_group_id
    if not group_id:
        return offerings
    try:
        room = await azure.read_reserved_room(ReservedRoomInput(group_id=group_id))
    except ActivityError as err:
        machine.log.info(f"could not read the reserved capacity of {group_id} ({error_text(err)}): order kept")
        return offerings
    machine.reserved_room = room
    ordered = reserved_first(offerings, room)
    shown = [f"{o.describe()} ({room.describe(o)})" for o in ordered if room.describe(o)]
    machine.log.info("reserved capacity: " + ("; ".join(shown) if shown else "none for these offerings"))
    return ordered


async def _by_capacity_order(machine: Machine, azure: AzureCalls) -> list[Offering]:
    """The spec's offerings in the order its `capacity_order` asks (models/prices.py): as listed without a read; by
    price (and eviction bucket) after one read of the prices, as listed when that read fails."""
    spec = azure.spec
    offerings = offerings_of(spec)
    if spec.capacity_order == CapacityOrder.LISTED:
        return offerings
    priorities = list(dict.fromkeys(o.priority for o in offerings))
    inp = PricesInput(location=spec.location, vm_sizes=list(spec.vm_sizes), priorities=priorities,
                      eviction=spec.capacity_order == CapacityOrder.PRICE_AND_EVICTION and Priority.SPOT in priorities)
    try:
        prices = await azure.read_prices(inp)
    except ActivityError as err:
        machine.log.info(f"could not read prices ({error_text(err)}): offerings tried as listed")
        return offerings
    ordered = order_offerings(offerings, prices, spec.capacity_order)
    machine.log.info(f"offerings by {spec.capacity_order} ({prices.source}): "
                     + ", ".join(f"{o.describe()} {prices.weighed(o, spec.capacity_order):.4f}" for o in ordered[:6]))
    return ordered


async def choose_offering(machine: Machine, azure: AzureCalls, requested: Callable[[], bool],
                          clear_request: Callable[[], None], deadline: Deadline
                          ) -> tuple[Offering, list[SkippedOffering]] | None:
    """The offering the next attempt tries, and those it skips; None when the creation timeout passed
    while every offering was refused (the machine then fails as after any creation timeout).

    While every offering is over quota by the memory's reading the machine waits Pending, beyond the creation
    timeout, which counts again once it may try (_wait_for_quota). While every offering is refused (by Azure, or
    some by Azure and the others over quota) it waits (CrashLoopBackOff) until the first refusal ends, or
    a `reconcile` (requested/clear_request: creation.Wake), which tries the first offering at once whatever the
    memory says; so does the first attempt after a reconcile of a Failed machine.
    """
    offerings = await _ordered(machine, azure)
    machine.size_accelerated = None  # known only from this call's claim
    if machine.state.ignore_refusals_once:
        machine.state.ignore_refusals_once = False
        return offerings[0], []
    waits, over_quota = 0, ""
    while True:
        claim = await _claim(machine, azure, offerings)
        answer = claim.availability
        if over_quota and not (claim.offering is None and quota_wait(answer.skipped)):
            _quota_wait_over(machine, deadline)
            over_quota = ""
        machine.size_accelerated = claim.accelerated_networking
        if claim.offering is not None:
            return claim.offering, answer.skipped
        others_first = claim.probed_by_others or claim.usages_reader or claim.read_usages or claim.skus_reader
        over_quota = "" if others_first else quota_wait(answer.skipped)
        if over_quota:
            if await _wait_for_quota(machine, answer, over_quota, requested, clear_request):
                _quota_wait_over(machine, deadline)
                return offerings[0], answer.skipped
            continue
        now = workflow.now()
        if others_first:
            # Another machine is trying the offerings left (nobody knows yet whether they have room), or reads
            # the quota usages first: that decides, so this machine asks again shortly instead of risking a
            # refusal of its own.
            waits += 1
            machine.set_phase(Phase.PENDING if not machine.state.status.attempts else Phase.CRASH_LOOP_BACK_OFF)
            names = ", ".join(o.describe() for o in claim.probed_by_others)
            read = "resource SKUs" if claim.skus_reader else "quota usages"
            waiting = (f"waiting for another machine's attempt at {names}" if names else
                       f"waiting for the {read} of {azure.spec.location}, read by "
                       f"{claim.skus_reader or claim.usages_reader or 'another machine'}")
            machine.operation(Stage.CREATE, OperationState.PROCESSING, waiting, retry_in=probe_poll(waits))
            if await _woken_before(probe_poll(waits), requested, clear_request, deadline) or deadline.passed:
                return None if deadline.passed else (offerings[0], answer.skipped)
            continue
        if deadline.passed:
            return None
        # Until the first refusal ends (the clock sets only the timer's length), or the creation timeout's timer
        # (never capped to end with it: creation.py says why).
        delay = max((answer.earliest or now) - now, policies.SHORTEST_TIMER)
        shown = min(delay, deadline.left())
        machine.set_phase(Phase.CRASH_LOOP_BACK_OFF)
        why = "was refused recently or has no quota left" if any(s.reason for s in answer.skipped) else \
            "was refused recently"
        machine.operation(Stage.CREATE, OperationState.FAILED,
                          f"every offering {why}; trying again in {humanize(shown)} "
                          f"(or at once on reconcile): {_listed(answer.skipped, now)}", retry_in=shown)
        if await _woken_before(delay, requested, clear_request, deadline):
            machine.log.info("reconcile: trying the first offering now, whatever the memory says")
            return offerings[0], answer.skipped
        if deadline.passed:
            return None


async def _wait_for_quota(machine: Machine, answer: Availability, why: str, requested: Callable[[], bool],
                          clear_request: Callable[[], None]) -> bool:
    """Every offering is over quota by the memory's reading: nothing was refused and nothing failed, so the machine
    waits Pending, beyond its creation timeout (a pool would otherwise fail, delete and replace it in a loop), until
    the next reading may show room (then it claims again: no ARM write; the memory reads the usages for the fleet
    at most every AZMC_QUOTA_READ_EVERY), or a `reconcile`. True when a reconcile ended the wait."""
    now = workflow.now()
    delay = max((answer.earliest or now) - now, policies.SHORTEST_TIMER)
    machine.wait_for_quota(why)
    listed = f": {_listed(answer.skipped, now)}" if len(answer.skipped) > 1 else ""
    machine.operation(Stage.CREATE, OperationState.PROCESSING,
                      f"waiting for quota: {why}; asking again in {humanize(delay)} (or at once on reconcile)"
                      f"{listed}", retry_in=delay)
    try:
        await workflow.wait_condition(requested, timeout=delay,
                                      timeout_summary="every offering over quota: wait for the next reading")
    except TimeoutError:
        return False
    clear_request()
    machine.log.info("reconcile: trying the first offering now, whatever the quota reading says")
    return True


def _quota_wait_over(machine: Machine, deadline: Deadline) -> None:
    """The quota wait ended: the creation timeout counts from now, as the machine may try only now."""
    state = machine.state
    state.status.waiting_for_quota = ""
    state.creation_started_at = workflow.now()
    deadline.restart(state.creation_started_at + state.spec.timeouts.creation)


def begin_attempt(machine: Machine, offering: Offering, skipped: list[SkippedOffering]) -> None:
    status = machine.state.status
    status.offering = offering
    entry = OfferingAttempt(attempt=status.attempts, offering=offering, skipped=skipped)
    status.offering_attempts = [*status.offering_attempts, entry][-OFFERING_ATTEMPTS_SHOWN:]
    skipping = f", skipping {_listed(skipped, workflow.now())}" if skipped else ""
    room = machine.reserved_room.describe(offering) if machine.reserved_room is not None else ""
    reserved = f" ({room})" if room else ""
    machine.operation(Stage.CREATE, OperationState.PROCESSING,
                      f"attempt {status.attempts}: trying {offering.describe()}{reserved}{skipping}")


async def attempt_worked(machine: Machine, azure: AzureCalls, offering: Offering) -> None:
    """The VM runs: the offering is proven, so machines waiting for this attempt may all use it now."""
    try:
        await _tell(machine, azure, RefusalReport(offering=offering, worked=True, machine=_machine_id(machine)))
    except ActivityError as err:  # the probe then ends by itself (PROBE_FOR)
        machine.log.warning(f"could not tell the memory that {offering.describe()} worked: {error_text(err)}")


async def remember_refusal(machine: Machine, azure: AzureCalls, offering: Offering,
                           error: BaseException) -> Refusal | None:
    """Right after a failed attempt, before it is compensated (that can take minutes, and other machines
    ask meanwhile): a capacity refusal is told to the shared memory. The refusal remembered, when the next
    attempt may start at once with another offering (say so with `next_offering_at_once`); else None."""
    if error_type(error) != ErrorType.CAPACITY_EXHAUSTED:
        try:  # not Azure's refusal: the offering stays untried, and this machine's probe of it ends
            await _tell(machine, azure, RefusalReport(offering=offering, machine=_machine_id(machine)))
        except ActivityError as err:
            machine.log.warning(f"could not tell the memory that the attempt ended: {error_text(err)}")
        return None
    code, message = azure_code(error)
    code = code or "AllocationFailed"  # a capacity error without Azure's code: the commonest one
    status = machine.state.status
    if status.offering_attempts:
        status.offering_attempts[-1] = status.offering_attempts[-1].model_copy(update={"refused": code})
    spec = machine.state.spec
    report = RefusalReport(offering=offering, code=code, message=message,
                           machine=f"{spec.resource_group}/{spec.name}")
    try:
        return await _tell(machine, azure, report)
    except ActivityError as err:
        # Not remembered: trying the next offering now would ask for this one again. Back off instead.
        machine.log.warning(f"could not tell the memory of refused offerings: {error_text(err)}")
        return None


def next_offering_at_once(machine: Machine, offering: Offering, refusal: Refusal, error: BaseException) -> None:
    """After compensating a refused attempt: what was refused, for how long, and that the next offering
    follows at once (the last error, which the compensation's own successes cleared)."""
    skipped = f"the next usages reading decides when {refusal.scope()} is tried again" \
        if is_quota_refusal(refusal.code, refusal.message) else \
        f"{refusal.scope()} is skipped until {refusal.until:%H:%M:%S} UTC"
    machine.operation(Stage.CREATE, OperationState.FAILED,
                      f"attempt {machine.state.status.attempts}: Azure refused {offering.describe()} "
                      f"({refusal.code}); {skipped}; next offering at once", error=error_text(error))


async def spot_evicted(machine: Machine, azure: AzureCalls, why: str) -> bool:
    """Tell the memory that Azure takes this Spot machine's offering back (evicted, or its eviction announced): it
    is skipped as long as an allocation failure, so a re-creation or a pool's replacement takes another offering.
    False when the machine is not on a Spot offering or the memory could not be told."""
    offering, spec = machine.state.status.offering, machine.state.spec
    if offering is None or offering.priority != Priority.SPOT:
        return False
    try:
        await _tell(machine, azure, RefusalReport(offering=offering, code=SPOT_EVICTED, message=why,
                                                  machine=f"{spec.resource_group}/{spec.name}"))
    except ActivityError as err:
        machine.log.warning(f"could not tell the memory of refused offerings: {error_text(err)}")
        return False
    return True


def _spot_may_fall_back(machine: Machine) -> bool:
    spec, offering = machine.state.spec, machine.state.status.offering
    return (spec.spot is not None and spec.spot.fallback_to_regular and offering is not None
            and offering.priority == Priority.SPOT)


async def evicted_spot_goes_regular(machine: Machine, azure: AzureCalls, inventory: Inventory) -> bool:
    """A health check found the Spot VM of a machine with fallback_to_regular deallocated or gone: taken
    for an eviction (Azure took the capacity back). The Spot offering is told to the memory, a deallocated
    VM is deleted keeping its data disks, and True says: re-create now (the next offering: regular).
    Without the flag nothing changes: the VM is started again (or re-created) as Spot."""
    if not _spot_may_fall_back(machine) or not (inventory.vm_stopped or not inventory.has_vm):
        return False
    found = f"VM {inventory.node_name} is {inventory.vm_state.power_state}" if inventory.has_vm else "VM gone"
    if not await spot_evicted(machine, azure, f"Spot eviction: {found}"):
        return False  # not remembered: the re-creation would ask for Spot again; start it instead
    machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                      f"Spot VM evicted ({found}): re-creating it as the next offering (fallback_to_regular), "
                      "keeping the data disks")
    if inventory.has_vm:
        await recovery.make_data_disks_survive(machine, azure, inventory, Stage.HEALTH_CHECK)
        await azure.delete_vm(True)
    return True
