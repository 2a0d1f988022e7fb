"""`bench.repair_time` on its smallest run, so it cannot rot: the restart rung with 1-second waits on a real dev
server, emulator and `azmc worker`; what it counts is checked, never how long it took."""

from pathlib import Path

from bench import repair_time


async def test_the_restart_rung_is_measured_with_the_requests_it_made(tmp_path: Path) -> None:
    [rung] = await repair_time.measure(["restart"], wait_s=1, time_scale=0, logs=tmp_path)
    assert (rung.name, rung.fault, rung.waits_s) == ("restart", "hang", 2)  # timeouts.health + the restart's wait
    assert rung.asked["virtualMachines.restart"] == 1 and "virtualMachines.redeploy" not in rung.asked
    assert rung.requests == sum(rung.asked.values()) - rung.polls
    metrics = [entry["metric"] for entry in repair_time.rows([rung], time_scale=0)]
    assert metrics == ["repair by restart: Unhealthy -> Running, beyond the configured waits",
                       "repair by restart: ARM requests from the fault to Running"]
