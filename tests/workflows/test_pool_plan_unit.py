"""The pool's pure decisions (workflows/pool/plan.py): scale-down order, rolling bounds, min_ready, stuck,
the meltdown guard and preservation; and that 500 machines fit far below Temporal's payload limit."""

from datetime import UTC, datetime, timedelta
from typing import Any

from models.pool import PoolMachine, PoolSpec
from models.status import Phase
from tests.workflows.helpers import SUBNET_ID
from tests.workflows.pools import pool_dict
from workflows.pool.plan import plan, scale_down_order
from workflows.pool.state import PoolState
from workflows.pool.view import build_status
from workflows.pool.zones import spread_zones

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SUBNET = SUBNET_ID


def spec(replicas: int, **overrides: Any) -> PoolSpec:
    return PoolSpec.model_validate(pool_dict(SUBNET, replicas, **overrides))


def machine(name: str, revision: str, phase: Phase = Phase.RUNNING, age_min: int = 60, **flags: Any) -> PoolMachine:
    """Running ones are available (`ready`: min_ready passed, as the pool's clock says) unless told otherwise."""
    flags.setdefault("ready", phase == Phase.RUNNING)
    return PoolMachine(name=name, revision=revision, phase=phase, since=NOW - timedelta(minutes=age_min), **flags)


def test_scale_down_order_is_mcms() -> None:
    target = "new00"
    machines = [machine("run-new-young", target, age_min=5), machine("run-new-old", target, age_min=500),
                machine("run-old", "old00"), machine("unknown", target, Phase.UNKNOWN),
                machine("pending", target, Phase.PENDING), machine("creating", target, Phase.CREATING),
                machine("crash", target, Phase.CRASH_LOOP_BACK_OFF), machine("failed", target, Phase.FAILED)]
    order = [m.name for m in scale_down_order(machines, target)]
    assert order[:2] == ["failed", "crash"] and set(order[2:4]) == {"pending", "creating"}
    assert order[4:] == ["unknown", "run-old", "run-new-young", "run-new-old"]


def test_scale_down_deletes_the_excess_in_that_order() -> None:
    s = spec(2)
    machines = [machine("a", s.revision), machine("b", s.revision, Phase.CRASH_LOOP_BACK_OFF),
                machine("c", s.revision, age_min=1)]
    decided = plan(s, machines, revision=s.revision, paused=False, stuck=False)
    assert [name for name, _ in decided.delete] == ["b"] and decided.create == 0


def test_rolling_with_max_unavailable_0_surges_first_and_drops_old_only_when_new_is_available() -> None:
    s = spec(3, min_ready="2m")
    old = [machine(n, "old00") for n in ("o1", "o2", "o3")]
    first = plan(s, old, revision=s.revision, paused=False, stuck=False)
    assert (first.create, first.delete, first.rolling) == (1, [], True)
    young = machine("n1", s.revision, age_min=1, ready=False)  # Running, its min_ready timer not fired yet
    second = plan(s, [*old, young], revision=s.revision, paused=False, stuck=False)
    assert (second.create, second.delete) == (0, [])
    ready = machine("n1", s.revision, age_min=3)
    third = plan(s, [*old, ready], revision=s.revision, paused=False, stuck=False)
    assert [name for name, _ in third.delete] == ["o1"] and third.create == 0


def test_max_unavailable_lets_old_machines_go_first_and_broken_old_ones_go_freely() -> None:
    s = spec(4, strategy={"max_surge": 0, "max_unavailable": 2})
    machines = [machine("o1", "old00"), machine("o2", "old00"), machine("o3", "old00"),
                machine("o4", "old00", Phase.UNKNOWN)]
    decided = plan(s, machines, revision=s.revision, paused=False, stuck=False)
    deleted = [name for name, _ in decided.delete]
    assert deleted[0] == "o4" and len(deleted) == 2  # the Unknown one, then one more (3 available - 2 minimum)


def test_paused_or_stuck_rollouts_do_not_move_but_heal() -> None:
    s = spec(2)
    machines = [machine("o1", "old00"), machine("o2", "old00", Phase.FAILED)]
    for paused, stuck in ((True, False), (False, True)):
        decided = plan(s, machines, revision=s.revision, paused=paused, stuck=stuck)
        assert decided.delete == [("o2", "Failed: replaced")] and decided.create == 1 and decided.replacements == 1


def test_a_rollout_without_progress_for_the_creation_timeout_is_stuck() -> None:
    s = spec(1, template={**pool_dict(SUBNET, 1)["template"], "timeouts": {"creation": "15m"}})
    machines = [machine("o1", "old00"), machine("n1", s.revision, Phase.CRASH_LOOP_BACK_OFF, age_min=14)]
    early = plan(s, machines, revision=s.revision, paused=False, stuck=False, stalled=False)
    assert not early.stuck and early.create == 0
    late = plan(s, machines, revision=s.revision, paused=False, stuck=False, stalled=True)
    assert late.stuck and late.create == 0 and late.delete == []


def test_the_meltdown_guard_replaces_max_replacements_at_a_time_and_says_so() -> None:
    s = spec(5, max_replacements=2)
    failed = [machine(f"f{i}", s.revision, Phase.FAILED, age_min=10 + i) for i in range(5)]
    decided = plan(s, failed, revision=s.revision, paused=False, stuck=False)
    assert sorted(name for name, _ in decided.delete) == ["f3", "f4"]  # the oldest failures first
    assert decided.create == 2 == decided.replacements
    assert decided.held.startswith("3 Failed machines wait for a replacement: max_replacements 2")
    in_flight = [*failed[:3], machine("r1", s.revision, Phase.CREATING, replacement=True),
                 machine("r2", s.revision, Phase.CRASH_LOOP_BACK_OFF, replacement=True)]
    held = plan(s, in_flight, revision=s.revision, paused=False, stuck=False)
    assert held.delete == [] and held.create == 0 and "3 Failed machines wait" in held.held


def test_failed_machines_are_preserved_up_to_the_limit_then_deleted_after_the_timeout() -> None:
    s = spec(2, preserve_failed=1, max_replacements=2, preserve_timeout="2h")
    machines = [machine("a", s.revision, Phase.FAILED, age_min=2), machine("b", s.revision, Phase.FAILED, age_min=1)]
    decided = plan(s, machines, revision=s.revision, paused=False, stuck=False)
    assert decided.preserve == ["a"] and decided.delete == [("b", "Failed: replaced")] and decided.create == 2
    kept = machine("a", s.revision, Phase.FAILED, age_min=121, preserved=True)
    running = [machine("c", s.revision), machine("d", s.revision)]
    assert plan(s, [kept, *running], revision=s.revision, paused=False, stuck=False).delete == []
    expired = plan(s, [kept, *running], revision=s.revision, paused=False, stuck=False, expired=frozenset({"a"}))
    assert expired.delete == [("a", "preserved for 2h")] and expired.create == 0


def test_500_machines_keep_the_status_and_carried_state_far_below_the_payload_limit() -> None:
    s = spec(500)
    machines = [machine(f"web-{i:05d}", s.revision) for i in range(500)]
    state = PoolState(spec=s, revision=s.revision, machines=machines, current_revision=s.revision)
    status = build_status(state, NOW)
    assert status.available == 500
    # Temporal refuses payloads over 2 MB and warns from 512 KB; both stay well under the warning.
    assert len(status.model_dump_json()) < 200_000
    assert len(state.model_dump_json()) < 200_000


def test_zones_rotate_so_the_least_used_zone_comes_first() -> None:
    assert spread_zones(["1", "2", "3"], []) == ["1", "2", "3"]
    assert spread_zones(["1", "2", "3"], ["1"]) == ["2", "3", "1"]
    assert spread_zones(["1", "2", "3"], ["1", "2", "1"]) == ["3", "1", "2"]
    assert spread_zones(["1", "2", "3"], ["1", "2", "3", "3"]) == ["1", "2", "3"]
    assert spread_zones([""], ["", ""]) == [""]
