"""The NIC's NSG, application security groups and load balancer backend pools (issue 28): created with the
machine, visible in what the emulator stored, changed in place by update_spec (one NIC PUT, the same VM), a
reference that does not exist refused by Azure and said by the machine; a public IP change is refused."""

from datetime import timedelta
from typing import Any

from emulator.seed import seed_asg_id, seed_backend_pool_id, seed_nsg_id
from models.status import Phase
from tests.support.arm_http import arm
from tests.workflows.helpers import in_phase, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.test_update_spec import refused, update


def _nic(stack: Stack) -> dict[str, Any]:
    [nic] = [r for r in stack.emulator.resources("networkInterfaces") if r["name"] == "vm1-nic"]
    answer = arm(stack.emulator, "GET", nic["id"])
    assert answer.status == 200
    return answer.body


def _stored(stack: Stack) -> tuple[str, list[str], list[str]]:
    """(NSG id, ASG ids, backend pool ids) of the NIC as the emulator stored it."""
    props = _nic(stack)["properties"]
    ipc = props["ipConfigurations"][0]["properties"]
    return ((props.get("networkSecurityGroup") or {}).get("id", ""),
            [a["id"] for a in ipc.get("applicationSecurityGroups", [])],
            [p["id"] for p in ipc.get("loadBalancerBackendAddressPools", [])])


async def test_memberships_are_created_and_changed_in_place(stack: Stack) -> None:
    sub = stack.emulator.subscription_id
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, network_security_group_id=seed_nsg_id(sub),
                     application_security_group_ids=[seed_asg_id(sub)],
                     load_balancer_backend_address_pool_ids=[seed_backend_pool_id(sub)])
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert _stored(stack) == (seed_nsg_id(sub), [seed_asg_id(sub)], [seed_backend_pool_id(sub)])
    vm_id = (await status_of(handle)).inventory.provider_id
    nic_puts = stack.emulator.requests()["by_operation"]["networkInterfaces.put"]

    answer = await update(handle, {**spec, "network_security_group_id": "",
                                   "load_balancer_backend_address_pool_ids": []})
    assert answer.changed == ["network_security_group_id", "load_balancer_backend_address_pool_ids"]
    assert answer.updated == ["NIC vm1-nic"]
    assert _stored(stack) == ("", [seed_asg_id(sub)], [])
    assert stack.emulator.requests()["by_operation"]["networkInterfaces.put"] == nic_puts + 1
    status = await status_of(handle)
    assert status.phase == Phase.RUNNING and status.inventory.provider_id == vm_id  # the same VM

    # The public IP is a new resource on the NIC's ip configuration: a new VM, refused naming the field.
    message = await refused(handle, {**spec, "public_ip": {}})
    assert "public_ip cannot change on a running machine" in message
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED


async def test_a_membership_that_does_not_exist_is_azures_refusal_named_by_the_machine(stack: Stack) -> None:
    sub = stack.emulator.subscription_id
    missing = seed_nsg_id(sub).replace("azmc-nsg", "nope")
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, network_security_group_id=missing)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    status = await wait_for(stack.env, handle, in_phase(Phase.FAILED), step=timedelta(seconds=30))  # 20 minutes
    assert "InvalidResourceReference" in (status.last_error or "") and "nope" in (status.last_error or "")
    assert not [r for r in stack.emulator.resources("networkInterfaces") if r["name"] == "vm1-nic"]
    await handle.signal("delete")
    await handle.result()
