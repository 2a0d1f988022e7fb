"""`bench.watch_cost` on a fleet of 5, so it cannot rot: what watching with health on reads, against the same
watching before health, counted by the emulator (never timed)."""

from typing import Any

from bench import watch_cost


async def test_watching_health_adds_no_read_to_a_ready_fleet_and_prices_an_unhealthy_machine(emulator: Any) -> None:
    measured = await watch_cost.measure(emulator.url, 5)
    assert measured["rows"] == 5 and measured["graph_pages"] == measured["graph_pages_before"] == 1
    assert measured["survey_requests"] == measured["survey_requests_before"] == 1  # the join adds columns, not pages
    assert measured["health_ratio"] == 1.0  # the VM agent comes in the check's own GET; no Resource Health read
    assert measured["recheck_requests"] == measured["resource_health_requests"] == 1
    assert measured["per_unhealthy_per_hour"] == 120  # a VM GET and a Resource Health GET every minute
    names = [entry["metric"] for entry in watch_cost.rows([measured])]
    assert names == ["ARM reads/h to watch 5 Running machines, health on",
                     "ARM reads/h to watch 5 machines, health on / before health",
                     "Unhealthy machines of 5 within 1.5x of watching before health"]
