"""A machine's news, believed only from the machine itself.

A pool's machines tell it each phase they enter (machine/pool_notice.py), but anyone who may signal the pool can send
the same `machine_phase` notice. So a notice only names a machine to look at: the pool asks that machine's own
workflow (describe_pool_machines: a describe, and the `status` query for a claimed preservation, both answered
from the workflow's state and so at least as new as anything it sent) and acts on that answer alone. A notice
the answer contradicts and that changed nothing is listed as ignored, with the reason (the pool's status and
log) - unless the machine's own word came along (then the others are phases it went through: late, not
false). Runs begun before POOL_CONFIRMS_NOTICES take notices as they come (PoolBook.phase_notice).
"""

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName
    from models.pool_io import ChildState, MachinesOfPool, MachineTruth
    from models.status import Phase

from workflows import policies
from workflows.pool.adoption import stranger
from workflows.pool.book import PoolBook, names_of
from workflows.pool.state import Heard, PoolState

# A confirmation that could not be read (the machines' worker away) is tried again after this.
CONFIRM_RETRY = timedelta(seconds=10)
# A notice its machine's answer contradicts is asked about again this often, a timer apart, before it is listed:
# the machine's newer notice may be on its way (two sent in one task may arrive in either order).
_RECONFIRMS, RECONFIRM_AFTER = 2, policies.SHORTEST_TIMER
_ASKED_AT_ONCE = 100  # machines per describe_pool_machines call, so one answer stays small
_NOTICES_KEPT = 10  # distinct notices kept per machine until it is asked: a flood of them costs no more


def read_notice(payload: Any) -> tuple[str, Heard] | str:
    """(machine, what it said), or why the payload is no notice."""
    if not isinstance(payload, dict):
        return f"not a JSON object ({type(payload).__name__})"
    name = payload.get("name")
    if not isinstance(name, str) or not name:
        return f"no machine name ({str(payload)[:80]})"
    try:
        phase = Phase(payload.get("phase"))  # type: ignore[arg-type]  # None is refused below as any unknown phase
    except ValueError:
        return f"{name}: unknown phase {str(payload.get('phase'))[:40]!r}"
    quota = payload.get("waiting_for_quota")
    return name, Heard(phase=phase, preserved=payload.get("preserved") is True,
                       waiting_for_quota=quota[:300] if isinstance(quota, str) else "")


def _said(heard: Heard) -> str:
    return f"{heard.phase}" + (" (preserved)" if heard.preserved else "") + \
        (f" (waiting for quota: {heard.waiting_for_quota})" if heard.waiting_for_quota else "")


class PoolNews:
    def __init__(self, state: PoolState, book: PoolBook) -> None:
        self._state = state
        self._book = book

    @property
    def waiting(self) -> bool:
        return bool(self._state.heard)

    def heard(self, payload: Any) -> bool:
        """A notice arrived (a signal handler): noted to confirm, or ignored at once; True when noted."""
        notice = read_notice(payload)
        if isinstance(notice, str):
            self._book.ignore(f"machine_phase {notice}")
            return False
        name, said = notice
        if self._state.machine(name) is None:
            if stranger(self._state, name):  # it may be the pool's own, too new for the adoption's listing
                return True
            self._book.ignore(f"{name} said {_said(said)}: not one of the pool's machines")
            return False
        earlier = self._state.heard.get(name, [])
        if said not in earlier:
            self._state.heard = {**self._state.heard, name: [*earlier, said][-_NOTICES_KEPT:]}
        return True

    def ask_again(self, names: list[str]) -> None:
        """Ask these machines' workflows without a notice (a machine that ended without a word says nothing)."""
        self._state.heard = {**{name: [] for name in names}, **self._state.heard}

    async def confirm(self) -> None:
        """Ask the machines named by notices; act on their answers. A notice its machine's answer contradicts is
        asked about again (_RECONFIRMS times, a timer apart) before it is listed as ignored."""
        state, book = self._state, self._book
        asked = {name: said for name, said in list(state.heard.items())[:_ASKED_AT_ONCE]
                 if state.machine(name) is not None}
        state.heard = {name: said for name, said in state.heard.items() if name not in asked
                       and state.machine(name) is not None}
        for attempt in range(_RECONFIRMS + 1):
            if not asked:
                return
            truths = await self._truths(asked)
            if truths is None:
                return
            doubted = {}
            for truth in truths:
                wrong = self._believe(truth, asked[truth.name])
                if wrong:
                    doubted[truth.name] = (truth, wrong)
            if attempt == _RECONFIRMS:
                for truth, wrong in doubted.values():
                    for said in wrong:
                        book.ignore(f"{truth.name} said {_said(said)}: its workflow runs, {truth.phase}"
                                    + (", not preserved" if truth.preserved is False else "") + "; nothing changed")
                return
            if doubted:
                await workflow.sleep(RECONFIRM_AFTER)
            asked = {}
            for name, (_, wrong) in doubted.items():  # with what they said meanwhile
                if state.machine(name) is not None:
                    meanwhile = state.heard.get(name, [])
                    state.heard = {key: value for key, value in state.heard.items() if key != name}
                    asked[name] = wrong + [said for said in meanwhile if said not in wrong]

    async def _truths(self, asked: dict[str, list[Heard]]) -> list[MachineTruth] | None:
        """The machines' answers; None when they could not be read (asked again after CONFIRM_RETRY)."""
        state = self._state
        try:
            truths = await self._ask(list(asked), query=False)
            # Only a machine's status says it is preserved, or why it waits for quota: asked when a notice claims
            # what the pool does not know yet.
            claims = [t.name for t in truths if any(self._claims_status(t, said) for said in asked[t.name])]
            if claims:
                queried = {t.name: t for t in await self._ask(claims, query=True)}
                truths = [queried.get(t.name, t) for t in truths]
        except ActivityError as err:
            self._book.log(f"could not ask {names_of(list(asked))} their state, again in {CONFIRM_RETRY}: "
                           f"{err.cause or err}")
            state.heard = {**asked, **state.heard}
            await workflow.sleep(CONFIRM_RETRY)
            return None
        return truths

    def _claims_status(self, truth: MachineTruth, said: Heard) -> bool:
        machine = self._state.machine(truth.name)
        if truth.state != ChildState.OPEN or machine is None:
            return False
        return (said.preserved and not machine.preserved) or \
            (said.phase == Phase.PENDING and said.waiting_for_quota != machine.waiting_for_quota)

    async def _ask(self, names: list[str], query: bool) -> list[MachineTruth]:
        """An activity, never a local one: a local activity still running when its workflow task is completed
        early has its answer replayed in another order than the notices arriving meanwhile (a pool's
        nondeterminism, tests/workflows/test_pool_replays_under_notices.py). A status query needs the machine's
        worker too."""
        inp = MachinesOfPool(pool_workflow_id=workflow.info().workflow_id,
                             resource_group=self._state.spec.resource_group, names=names, query_status=query)
        summary = f"Ask {names_of(names)} {'their status' if query else 'their state'}"
        return await workflow.execute_activity(
            ActivityName.DESCRIBE_POOL_MACHINES, inp, result_type=list[MachineTruth],
            start_to_close_timeout=policies.READ_TIMEOUT, retry_policy=policies.READ_RETRY, summary=summary)

    def _believe(self, truth: MachineTruth, notices: list[Heard]) -> list[Heard]:
        """Act on the machine's answer; the notices it contradicts (that changed nothing)."""
        book, name = self._book, truth.name
        if truth.state == ChildState.DELETED:
            book.forget(name, "deleted")
            return []
        if truth.state != ChildState.OPEN:
            book.ended(name, f"gone: its workflow {truth.detail}")
            return []
        if truth.phase is None:
            return []  # its AzmcPhase was set by hand to no phase: the next notice asks again
        if book.phase_notice(name, truth.phase, workflow.now(), truth.preserved is True, truth.waiting_for_quota):
            return []  # the machine's own news, whichever notice named it
        wrong = [said for said in notices if said.phase != truth.phase or (said.preserved and truth.preserved is False)
                 or (said.waiting_for_quota and truth.waiting_for_quota is not None
                     and said.waiting_for_quota != truth.waiting_for_quota)]
        if len(wrong) < len(notices):
            return []  # its latest word is among them: the others are phases it went through (late notices)
        return wrong
