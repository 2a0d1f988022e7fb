"""Spec `foresight`: the VM azmc creates publishes its scheduled events (scheduledEventsPolicy), and the fleet
survey's one query reads every machine's scheduled events and degraded-host annotation in the same pages, with no
request per machine; a machine without foresight is never given a notice."""

import math

from activities.reading import graph
from activities.reading.fleet import GraphMachine
from activities.reading.foresight import notices_by_vm
from activities.reading.graph import query_pages, sweep_query
from activities.sweep.survey import notices_of
from models.foresight import NoticeKind
from models.status import Phase
from tests.support.sdk import sdk_clients


async def test_the_survey_reads_each_foreseeing_vms_notices_in_the_same_pages(
        driver, make_spec, create_machine, emulator, monkeypatch) -> None:
    monkeypatch.setattr(graph, "PAGE_SIZE", 2)
    for i in range(4):
        await create_machine(make_spec(f"vm{i}", data_disks=[], foresight=i != 3))
    sync = sdk_clients(emulator)
    try:
        policy = sync.compute.virtual_machines.get("azmc-demo", "vm0").scheduled_events_policy
    finally:
        sync.close()
    assert policy.scheduled_events_additional_publishing_targets.event_grid_and_resource_graph.enable is True
    reboot = emulator.schedule_event("vm0", "Reboot", duration_seconds=120)
    emulator.degrade_host("vm1")
    emulator.schedule_event("vm3", "Reboot")  # no foresight: its events are not published

    with emulator_requests(emulator) as before:
        rows, pages = await query_pages(driver._clients, sweep_query(), "survey test")
    assert emulator.requests()["total"] - before == pages  # the graph pages, nothing per machine
    vm_rows = {r["name"] for r in rows if r["type"] == graph.VM_TYPE}
    assert vm_rows == {"vm0", "vm1", "vm2", "vm3"}
    assert pages == math.ceil(len(rows) / 2) and len(rows) == 4 + 1  # vm1 has a row more: event and annotation

    by_vm = notices_by_vm(rows)
    # The activity environment gives every machine here one owner workflow: a machine per VM row instead.
    machines = {r["name"]: GraphMachine(r["name"], "azmc-demo", f"machine/azmc-demo/{r['name']}", vm=r)
                for r in rows if r["type"] == graph.VM_TYPE}
    found = {name: notices_of(Phase.RUNNING, m, by_vm) for name, m in machines.items()}
    assert [(n.kind, n.id, n.duration_s, n.not_before is not None) for n in found["vm0"]] == [
        (NoticeKind.REBOOT, reboot["EventId"], 120, True)]
    assert {n.kind for n in found["vm1"]} == {NoticeKind.REDEPLOY, NoticeKind.DEGRADED}
    assert found["vm2"] == [] and found["vm3"] == []
    assert notices_of(Phase.CREATING, machines["vm0"], by_vm) == []


class emulator_requests:
    def __init__(self, emulator) -> None:
        self.emulator = emulator

    def __enter__(self) -> int:
        return self.emulator.requests()["total"]

    def __exit__(self, *exc: object) -> None:
        return None
