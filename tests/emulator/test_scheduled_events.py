"""What Azure announces of a VM, read through the real SDK: scheduled events (published to Resource Graph when the
VM's scheduledEventsPolicy asks, in the instance view's maintenanceRedeployStatus for a Redeploy), Resource Health
annotations, and what happens at the deadline or when the owner acts first."""

from __future__ import annotations

import time
import urllib.error
from datetime import datetime
from email.utils import parsedate_to_datetime

import pytest
from azure.mgmt.compute import models as cm
from azure.mgmt.resourcegraph.models import QueryRequest, QueryRequestOptions

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.arm_http import arm, group_path
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

FORESIGHT = ("healthresources | where type in~ ('microsoft.compute/virtualmachines/scheduledevents', "
             "'microsoft.resourcehealth/resourceannotations') | project type, properties")


def publishing() -> cm.ScheduledEventsPolicy:
    return cm.ScheduledEventsPolicy(
        user_initiated_redeploy=cm.UserInitiatedRedeploy(automatically_approve=True),
        scheduled_events_additional_publishing_targets=cm.ScheduledEventsAdditionalPublishingTargets(
            event_grid_and_resource_graph=cm.EventGridAndResourceGraph(enable=True)))


def publishing_vm(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: object) -> cm.VirtualMachine:
    make_vm(clients, emulator, name, **body)
    vm = clients.compute.virtual_machines.get(RG, name)
    vm.scheduled_events_policy = publishing()
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, vm).result()


def graph(clients: SyncClients, emulator: EmulatorHandle) -> list[dict]:
    request = QueryRequest(subscriptions=[emulator.subscription_id], query=FORESIGHT,
                           options=QueryRequestOptions(result_format="objectArray"))
    return clients.graph.resources(request).as_dict()["data"]


def test_the_policy_is_kept_and_publishes_events_to_the_graph(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "quiet")
    vm = publishing_vm(clients, emulator, "loud")
    policy = vm.scheduled_events_policy.scheduled_events_additional_publishing_targets
    assert policy.event_grid_and_resource_graph.enable is True
    emulator.schedule_event("quiet", "Reboot")
    event = emulator.schedule_event("loud", "Reboot", not_before_seconds=900, duration_seconds=300)
    rows = graph(clients, emulator)
    assert len(rows) == 1, "a VM whose policy does not publish has no event in the graph"
    props = rows[0]["properties"]
    assert (props["EventId"], props["EventType"], props["EventStatus"], props["Resources"], props["targetResourceId"],
            props["DurationInSeconds"]) == (event["EventId"], "Reboot", "Scheduled", ["loud"], vm.id, 300)
    assert props["NotBefore"].endswith("GMT")


def test_a_malformed_policy_is_refused_in_azures_shape(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "bad-policy")
    path = f"{group_path(emulator, RG)}/providers/Microsoft.Compute/virtualMachines/bad-policy"
    answer = arm(emulator, "PATCH", path, {"properties": {"scheduledEventsPolicy": {
        "scheduledEventsAdditionalPublishingTargets": {"eventGridAndResourceGraph": {"enable": "yes"}}}}})
    assert answer.status == 400 and "enable" in str(answer.body["error"])


def test_a_degraded_host_is_annotated_and_a_redeploy_scheduled_with_its_window(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    publishing_vm(clients, emulator, "sick")
    answer = emulator.degrade_host("sick", not_before_seconds=3600)
    assert answer["annotation"]["annotationName"] == "VirtualMachinePossiblyDegradedDueToHardwareFailure"
    kinds = {row["type"]: row["properties"] for row in graph(clients, emulator)}
    assert kinds["microsoft.resourcehealth/resourceannotations"]["context"] == "Platform Initiated"
    assert kinds["microsoft.compute/virtualmachines/scheduledevents"]["EventType"] == "Redeploy"
    status = clients.compute.virtual_machines.instance_view(RG, "sick").maintenance_redeploy_status
    assert status.is_customer_initiated_maintenance_allowed is True
    assert status.maintenance_window_end_time is not None


def test_a_redeploys_self_service_window_shows_in_the_instance_view_and_must_end_by_its_deadline(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    publishing_vm(clients, emulator, "planned")
    event = emulator.schedule_event("planned", "Redeploy", not_before_seconds=4 * 3600, self_service=(3600, 7200))
    status = clients.compute.virtual_machines.instance_view(RG, "planned").maintenance_redeploy_status
    assert status.is_customer_initiated_maintenance_allowed is False  # it opens in an hour
    opens = status.pre_maintenance_window_start_time - datetime.fromisoformat(event["created"])
    lasts = status.pre_maintenance_window_end_time - status.pre_maintenance_window_start_time
    assert (round(opens.total_seconds()), round(lasts.total_seconds())) == (3600, 3600)
    assert status.maintenance_window_start_time == parsedate_to_datetime(event["NotBefore"])  # Azure's, at 4 h
    with pytest.raises(urllib.error.HTTPError) as refused:  # the owner's window closes before Azure's starts
        emulator.schedule_event("planned", "Redeploy", not_before_seconds=3600, self_service=(600, 7200))
    assert "InvalidScheduledEvent" in refused.value.read().decode()


def test_the_owners_redeploy_before_the_deadline_completes_the_event_and_clears_the_annotation(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    publishing_vm(clients, emulator, "early")
    disks = {d.name: d.unique_id for d in clients.compute.disks.list_by_resource_group(RG)}
    event = emulator.degrade_host("early")["scheduled_event"]
    clients.compute.virtual_machines.begin_redeploy(RG, "early").result()
    (record,) = emulator.scheduled_events()
    assert (record["EventId"], record["EventStatus"], record["outcome"]) == (
        event["EventId"], "Completed", "approved by redeploy")
    assert [r["type"] for r in graph(clients, emulator)] == ["microsoft.compute/virtualmachines/scheduledevents"]
    assert clients.compute.virtual_machines.instance_view(RG, "early").maintenance_redeploy_status is None
    assert {d.name: d.unique_id for d in clients.compute.disks.list_by_resource_group(RG)} == disks
    emulator.start_event(event["EventId"])  # the deadline passes: Azure has nothing left to do
    assert emulator.scheduled_events()[0]["outcome"] == "approved by redeploy"


def test_at_the_deadline_a_reboot_makes_the_vm_unavailable_for_planned_maintenance(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    publishing_vm(clients, emulator, "rebooted")
    event = emulator.schedule_event("rebooted", "Reboot")
    emulator.start_event(event["EventId"])
    view = clients.compute.virtual_machines.instance_view(RG, "rebooted")
    assert view.vm_agent.statuses[0].display_status == "Not Ready"
    request = QueryRequest(subscriptions=[emulator.subscription_id], query="healthresources | where type =~ "
                           "'microsoft.resourcehealth/availabilitystatuses' | project properties",
                           options=QueryRequestOptions(result_format="objectArray"))
    (health,) = [row["properties"] for row in clients.graph.resources(request).as_dict()["data"]]
    assert (health["availabilityState"], health["context"]) == ("Unavailable", "Platform Initiated")
    assert "planned maintenance" in health["summary"]
    emulator.complete_event(event["EventId"])
    assert emulator.scheduled_events()[0]["outcome"] == "platform"
    assert clients.compute.virtual_machines.instance_view(RG, "rebooted").vm_agent.statuses[0].display_status \
        == "Ready"


def test_a_preemption_evicts_the_spot_vm_at_its_deadline(emulator: EmulatorHandle, clients: SyncClients) -> None:
    publishing_vm(clients, emulator, "spot", eviction_policy="Deallocate")
    event = emulator.schedule_event("spot", "Preempt")
    assert clients.compute.virtual_machines.instance_view(RG, "spot").statuses[1].code == "PowerState/running"
    emulator.start_event(event["EventId"])
    assert clients.compute.virtual_machines.instance_view(RG, "spot").statuses[1].code == "PowerState/deallocated"
    assert emulator.scheduled_events()[0]["EventStatus"] == "Completed"


def test_events_need_a_vm_and_a_known_type(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "regular")
    for name, event_type, code in (("nobody", "Reboot", 404), ("regular", "Nap", 400), ("regular", "Preempt", 400)):
        with pytest.raises(urllib.error.HTTPError) as refused:
            emulator.schedule_event(name, event_type)
        assert refused.value.code == code


def test_an_event_passes_its_deadline_on_the_emulators_clock(emulator: EmulatorHandle, clients: SyncClients) -> None:
    publishing_vm(clients, emulator, "timed")
    emulator.settings(time_scale=0.001)
    emulator.schedule_event("timed", "Freeze", not_before_seconds=60, duration_seconds=60)
    for _ in range(100):
        if emulator.scheduled_events()[0]["EventStatus"] == "Completed":
            break
        time.sleep(0.05)
    assert emulator.scheduled_events()[0]["outcome"] == "platform"
