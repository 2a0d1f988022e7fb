"""A pool acts on a machine's news only once the machine's own workflow confirms it: a `machine_phase` signal
sent by anyone else (`temporal workflow signal`) changes nothing and is listed as ignored, with the reason."""

from datetime import timedelta

import pytest

from models.naming import workflow_id
from models.status import Phase
from models.temporal_api import MACHINE_PHASE_SIGNAL
from tests.workflows.helpers import (
    RESOURCE_GROUP,
    between_tasks,
    in_phase,
    record_history,
    spec_dict,
    start_machine,
    wait_for,
)
from tests.workflows.pools import (
    pool_dict,
    pool_resources,
    pool_status,
    pool_vms,
    settled,
    start_pool,
    template_dict,
    wait_pool,
)
from tests.workflows.stack import Stack


async def test_a_spoofed_phase_notice_changes_nothing(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 2))
    before = await wait_pool(env, handle, settled(2))
    first, second = sorted(m.name for m in before.machines)

    spoofs = [{"name": first, "phase": "Deleted"}, {"name": second, "phase": "Failed"},
              {"name": first, "phase": "Running", "preserved": True}, {"name": "web-zzzzz", "phase": "Deleted"},
              {"name": second, "phase": "NoSuchPhase"},
              {"name": second, "phase": "Pending", "waiting_for_quota": "cores 10 of 10 vCPUs in use"}]
    for notice in spoofs:
        await handle.signal(MACHINE_PHASE_SIGNAL, notice)
    # Settled once every spoof is listed as ignored, or (today's bug) once the pool acted on one.
    after = await wait_pool(env, handle, lambda s: len(getattr(s, "ignored_notices", [])) >= len(spoofs)
                            or not settled(2)(s) or {m.name for m in s.machines} != {first, second},
                            step=timedelta(seconds=1))

    assert sorted(m.name for m in after.machines) == [first, second]
    assert all(m.phase == Phase.RUNNING and not m.preserved and not m.deleting for m in after.machines)
    assert pool_vms(emulator) == sorted([first, second])  # no replacement was created
    reasons = [entry.description for entry in after.ignored_notices]
    assert any(first in r and "Deleted" in r and "Running" in r for r in reasons), reasons
    assert any(second in r and "Failed" in r and "Running" in r for r in reasons), reasons
    assert any(first in r and "preserved" in r for r in reasons), reasons
    assert any("web-zzzzz" in r and "not one of" in r for r in reasons), reasons
    assert any("NoSuchPhase" in r for r in reasons), reasons
    assert any(second in r and "waiting for quota: cores" in r for r in reasons), reasons
    assert after.quota_waiting == 0 and after.quota_held == ""
    assert len(reasons) == len(spoofs), reasons
    # A late notice (a phase the machine went through; two sent in one task may arrive in either order) that
    # comes with the machine's own word is not listed: only notices its workflow contradicts are.
    for phase in ("Pending", "Running"):
        await handle.signal(MACHINE_PHASE_SIGNAL, {"name": second, "phase": phase})
    await between_tasks(env, handle.id)
    await env.sleep(timedelta(seconds=10))
    assert len((await pool_status(handle)).ignored_notices) == len(spoofs)
    for name in (first, second):  # the machines themselves were never touched
        machine = env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, name))
        assert (await machine.describe()).status.name == "RUNNING"
    assert (await pool_status(handle)).available == 2

    await handle.signal("delete")
    await handle.result()
    assert pool_resources(emulator) == []
    await record_history(handle, "pool_ignores_spoofed_notices_then_deleted")


@pytest.mark.parametrize("public_ip", [False, True], ids=["plain", "public-ip"])
async def test_deleting_the_pool_deletes_what_a_terminated_machine_left(stack: Stack, public_ip: bool) -> None:
    """A machine's workflow terminated by hand deletes nothing; when the pool is deleted it deletes what that
    machine left, its public IP too (read by name: the graph here shows the subscription of an hour ago, so it
    shows nothing)."""
    env, emulator = stack.env, stack.emulator
    emulator.settings(index_lag_s=3600, time_scale=1)
    template = template_dict(emulator.subnet_id, **({"public_ip": {}} if public_ip else {}))
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 2, template=template))
    before = await wait_pool(env, handle, settled(2))
    victim = before.machines[0].name
    await env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, victim)).terminate("by hand")
    assert victim in pool_vms(emulator)  # its VM lives on: nobody deleted it
    assert (f"{victim}-pip" in {r["name"] for r in emulator.resources("publicIPAddresses")}) == public_ip

    await handle.signal("delete")
    final = await handle.result()
    assert pool_resources(emulator) == [], pool_resources(emulator)
    assert final.azure_checked and final.left_in_azure == [], final
    assert any(victim in op.description and "left in Azure" in op.description for op in final.recent_operations)


async def test_deleting_the_pool_reads_azure_by_its_tag_not_its_own_list(stack: Stack) -> None:
    """A pool terminated and started again with `delete` at once (before it looked for its earlier machines to adopt:
    they run on, ABANDON) knows none of them. Deleting it finds them by the pool's tag: the running one is sent
    `delete`, the terminated one's resources are deleted by the pool, and a standalone machine that merely carries
    the tag is named, never touched."""
    env, emulator = stack.env, stack.emulator
    spec = pool_dict(emulator.subnet_id, 2)
    handle = await start_pool(env.client, stack.task_queue, spec)
    earlier = sorted(m.name for m in (await wait_pool(env, handle, settled(2))).machines)
    await handle.terminate("lost by hand")
    await env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, earlier[1])).terminate("by hand")
    stranger = await start_machine(env.client, stack.task_queue,
                                   spec_dict(name="vm7", subnet_id=emulator.subnet_id, pool="web"))
    await wait_for(env, stranger, in_phase(Phase.RUNNING))

    assert set(earlier) <= set(pool_vms(emulator))
    handle = await start_pool(env.client, stack.task_queue, spec, start_signal="delete")
    final = await handle.result()
    left = [r["name"] for r in pool_resources(emulator)]
    assert left and all(name.startswith("vm7") for name in left), left
    assert final.azure_checked
    (named,) = final.left_in_azure
    assert named.startswith("vm7 (VM vm7") and "machine/azmc-demo/vm7" in named and "not by the pool" in named, named
    lost = await env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, earlier[0])).describe()
    assert lost.status.name == "COMPLETED"  # sent `delete`: it deleted itself, as a machine does
    said = [op.description for op in final.recent_operations]
    assert any(earlier[0] in d and "running without it knowing" in d for d in said), said
    assert any(earlier[1] in d and "left in Azure" in d for d in said), said
    assert (await stranger.describe()).status.name == "RUNNING"
    await record_history(handle, "pool_deletion_reads_azure_by_its_tag")
    await stranger.signal("delete")
    await stranger.result()
