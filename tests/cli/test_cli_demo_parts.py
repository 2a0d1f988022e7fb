"""Pure parts of `azmc demo`: how it summarises stages, attempts and ARM request counts."""

from datetime import UTC, datetime, timedelta

from cli.demo.command import _compact
from cli.demo.scenario import MachineTrack, demo_specs, request_delta, unlucky_creation_timeout_s
from models.status import LastOperation, MachineStatus, OperationState, Phase, Stage


def test_repeated_stage_cycles_are_compacted() -> None:
    cycle = ["Create", "Compensate", "VerifyDeletion"]
    assert _compact([*cycle, *cycle, "Create"]) == "(Create > Compensate > VerifyDeletion) x2 > Create"
    assert _compact(["Create", "Compensate", "Compensate"]) == "Create > Compensate x2"
    assert _compact([]) == ""


def test_request_delta_counts_only_what_the_demo_caused() -> None:
    before = {"total": 5, "by_operation": {"virtualMachines.put": 2, "disks.get": 3}}
    after = {"total": 9, "by_operation": {"virtualMachines.put": 4, "disks.get": 3, "networkInterfaces.put": 2}}
    assert request_delta(before, after) == {"networkInterfaces.put": 2, "virtualMachines.put": 2}


def test_only_the_unlucky_machine_gets_a_short_creation_timeout_that_outlasts_the_nic_reservation() -> None:
    specs = demo_specs(4, "00000000-0000-0000-0000-000000000000", time_scale=0.05, token="abcd")
    assert [s.name for s in specs] == [f"demo-abcd-{i}" for i in range(1, 5)]
    assert specs[1].timeouts.creation == timedelta(seconds=unlucky_creation_timeout_s(0.05))
    assert unlucky_creation_timeout_s(0.05) > 180 * 0.05
    assert all(s.timeouts.creation == timedelta(minutes=20) for s in specs if s is not specs[1])


def _status(phase: Phase, attempts: int, stage: Stage, second: int) -> MachineStatus:
    when = datetime(2026, 1, 1, 0, 0, second, tzinfo=UTC)
    op = LastOperation(stage=stage, state=OperationState.PROCESSING, updated_at=when)
    return MachineStatus(name="m", resource_group="rg", phase=phase, attempts=attempts, last_operation=op,
                         recent_operations=[op])  # fmt: skip


def test_stages_are_recorded_once_however_often_the_same_answer_is_polled() -> None:
    track = MachineTrack(spec=demo_specs(2, "00000000-0000-0000-0000-000000000000", 0, "abcd")[0], wf_id="machine/rg/m")
    assert track.observe(_status(Phase.CREATING, 1, Stage.CREATE, 1))
    assert not track.observe(_status(Phase.CREATING, 1, Stage.CREATE, 1))  # same answer again
    track.observe(_status(Phase.CRASH_LOOP_BACK_OFF, 2, Stage.COMPENSATE, 2))
    track.observe(_status(Phase.CREATING, 1, Stage.CREATE, 3))
    assert track.stages == ["Create", "Compensate", "Create"]
    assert track.phase == Phase.CREATING
