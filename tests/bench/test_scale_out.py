"""`bench.scale_out` on its smallest run, so it cannot rot: two `azmc worker` processes on one dev server, the rate
stage with 1 and 2 of them, the fleet stage with one SIGKILLed mid-run against an emulator enforcing Azure's budgets
(x20); what it finds is checked, never how long it took."""

from pathlib import Path

from bench import scale_out


async def test_the_rate_is_measured_with_one_then_two_workers(tmp_path: Path) -> None:
    rate = await scale_out.rate_stage(tmp_path, workers=2, batch=5, rounds=1)
    assert [batch["workers"] for batch in rate["batches"]] == [1, 2]
    assert set(rate["batches"][1]["cpu"]) == {"server", "emulator", "worker 1", "worker 2"}
    metrics = [entry["metric"] for entry in scale_out.rate_rows(rate)]
    assert metrics == ["lifecycle rate, 1 worker(s)", "lifecycle rate, 2 worker(s)", "lifecycle rate, 2 workers / 1"]


async def test_a_fleet_shared_by_two_workers_survives_a_kill_and_leaves_nothing(tmp_path: Path) -> None:
    fleet = await scale_out.fleet_stage(tmp_path, machines=10, workers=2, speed=20, check_s=30, max_surge=1, hold_s=1)
    assert (fleet["singles"], fleet["pool"], fleet["workers"]) == (9, 1, 2)
    assert fleet["answered"] == fleet["asked"] == 10  # every machine answered `status`, the killed worker's too
    assert fleet["throttled"] == 0
    # A workflow task the server recorded as failed (its code, or its determinism, broke); the SDK's own counter is
    # reported beside it, but also counts completions the server no longer took on a busy machine.
    assert fleet["task_failures_in_histories"] == {}
    assert fleet["open_after"] == fleet["left"] == 0
    assert len(fleet["peak_rss_mib"]) == 2
    assert {entry["metric"].split(": ")[-1] for entry in scale_out.fleet_rows(fleet)} >= {
        "429s, 2 workers", "workflow task failures", "left after delete", "worker peak RSS"}
