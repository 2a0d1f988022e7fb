"""The last step of a pool's deletion: Azure read by the pool's `azmc-pool` tag, not the pool's own list.

The pool's list holds what it was told; Azure holds what is. find_pool_leftovers (graph, then direct GETs
and describes, activities/pool/leftovers.py) sorts what carries the tag: the pool's own machines that still
run (it lost them) get `delete`; what its machines whose workflows ended left behind (terminated by hand, or
ended without deleting) is deleted here at once, as the pool knows they are closed (no orphan grace); the rest
is not the pool's and is named in its status. The pool says none of its machines is left only then.
"""

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName, DeleteResourceInput, DeleteVmInput, MachineRef
    from models.naming import nic_name, public_ip_name, workflow_id
    from models.pool_io import PoolLeftovers, PoolLeftoversInput
    from models.sweep import OrphanMachine

from workflows import policies
from workflows.azure_calls import error_text
from workflows.pool.state import PoolState

# Finding reads the whole pool's tag: a few minutes at most; it heartbeats.
FIND_TIMEOUT = timedelta(minutes=5)
# Between rounds when something could not be read or deleted: the pool keeps trying, and says so.
FIRST_WAIT, LONGEST_WAIT = timedelta(seconds=30), timedelta(minutes=10)


def _expected(state: PoolState, name: str) -> OrphanMachine:
    """An ended machine's resources by the names the current template gives them (the graph finds the rest)."""
    spec = state.spec.template.machine_spec(name, state.spec.name)
    return OrphanMachine(name=name, resource_group=state.spec.resource_group,
                         workflow_id=workflow_id(state.spec.resource_group, name), vm=name,
                         nics=[nic_name(name)], disks=spec.all_disk_names(),
                         public_ips=[public_ip_name(name)] if spec.public_ip else [])


async def find_leftovers(state: PoolState) -> PoolLeftovers:
    inp = PoolLeftoversInput(pool_workflow_id=workflow.info().workflow_id, resource_group=state.spec.resource_group,
                             pool=state.spec.name, ended=[_expected(state, name) for name in state.ended])
    return await workflow.execute_activity(
        ActivityName.FIND_POOL_LEFTOVERS, inp, result_type=PoolLeftovers, start_to_close_timeout=FIND_TIMEOUT,
        heartbeat_timeout=policies.SHORT_HEARTBEAT, retry_policy=policies.READ_RETRY,
        summary=f"Read Azure by tag azmc-pool={state.spec.name}")


async def _delete(resource: str, name: ActivityName, arg: object, limit: timedelta) -> str:
    """"" when deleted, else why not."""
    try:
        await workflow.execute_activity(
            name, arg, start_to_close_timeout=limit, heartbeat_timeout=policies.OPERATION_HEARTBEAT,
            retry_policy=policies.DELETE_RETRY, summary=f"Delete {resource}, left by a machine whose workflow ended")
    except ActivityError as err:
        return f"{resource}: {error_text(err)}"
    return ""


async def _collect_one(found: OrphanMachine) -> list[str]:
    """The VM first (its NIC and OS disk may go with it), then NICs and disks side by side, then public IPs, as the
    sweep does."""
    ref, owner = MachineRef(resource_group=found.resource_group, name=found.name), found.workflow_id
    failed = []
    if found.vm:
        failed.append(await _delete(f"VM {found.vm}", ActivityName.DELETE_VM,
                                    DeleteVmInput(machine=ref, owner_workflow_id=owner), policies.VM_TIMEOUT))
    failed += await asyncio.gather(
        *(_delete(f"NIC {name}", ActivityName.DELETE_NIC, DeleteResourceInput(machine=ref, name=name,
                                                                              owner_workflow_id=owner),
                  policies.NIC_TIMEOUT) for name in found.nics),
        *(_delete(f"disk {name}", ActivityName.DELETE_DISK, DeleteResourceInput(machine=ref, name=name,
                                                                               owner_workflow_id=owner),
                  policies.DISK_TIMEOUT) for name in found.disks))
    # Public IPs once the NICs that held them are gone (Azure refuses before), as the sweep does.
    failed += await asyncio.gather(
        *(_delete(f"public IP {name}", ActivityName.DELETE_PUBLIC_IP,
                  DeleteResourceInput(machine=ref, name=name, owner_workflow_id=owner), policies.NIC_TIMEOUT)
          for name in found.public_ips))
    return [why for why in failed if why]


async def collect(machines: list[OrphanMachine]) -> list[str]:
    """Delete what these ended machines left; what could not be deleted, one line each."""
    failed = await asyncio.gather(*(_collect_one(found) for found in machines))
    return [why for whys in failed for why in whys]

