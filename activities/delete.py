"""Deletes that are done when the resource is gone: 404/204 is success, and only our own resources go."""

from collections.abc import Awaitable, Callable
from typing import Any

from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.core.polling import AsyncLROPoller
from azure.mgmt.compute import models as cm

from activities.arm import classified, get_or_none, log, log_start, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.force_delete import force_deletion, refuses_force
from activities.ownership import Owner, owner_of
from activities.read_cache import TRUST_S
from activities.reading.vm_statuses import until_deleted
from models.activity_io import DeleteResourceInput, DeleteVmInput

Getter = Callable[[], Awaitable[Any]]
Starter = Callable[..., Awaitable[AsyncLROPoller[None]]]


async def _delete_owned(kind: str, name: str, owner: Owner, get: Getter, begin: Starter,
                        seen: Any = None, options: Callable[[Any], dict[str, Any]] = lambda _: {}) -> bool:
    """True when this call deleted it (or resumed its delete); `seen`: the resource as this worker read or
    wrote it moments ago (activities/read_cache.py), whose ownership then needs no GET; `options`: the
    DELETE's arguments that depend on the resource as it is."""
    machine = owner.machine
    action = f"delete {kind} {name}"
    async with classified(action):
        # A previous attempt started the delete: keep polling it instead of checking and re-sending.
        resumed, _ = await resume_operation(machine, lambda token: begin(continuation_token=token))
        if resumed:
            log(machine, "%s %s deleted (resumed operation)", kind, name)
            return True
        existing = seen if seen is not None else await get_or_none(get())
        if existing is None:
            log(machine, "%s %s does not exist; nothing to delete", kind, name)
            return False
        owner.require(kind, name, existing.tags)
        log_start(machine, "deleting %s %s", kind, name)
        try:
            await wait_heartbeating(await begin(**options(existing)))
        except ResourceNotFoundError:
            pass  # deleted by someone else meanwhile: the goal is reached
    log(machine, "%s %s deleted", kind, name)
    return True


async def delete_vm(clients: AzureClients, inp: DeleteVmInput, force_enabled: bool = True) -> None:
    """`force_enabled`: force-delete a VM that keeps no disk (activities/force_delete.py) without being asked."""
    rg, name = inp.machine.resource_group, inp.machine.name
    vms = clients.compute.virtual_machines

    async def begin(**kwargs: Any) -> AsyncLROPoller[None]:
        # The NIC and OS disk go with the VM (deleteOption Delete); data disks per their deleteOption.
        try:
            return await vms.begin_delete(rg, name, polling=clients.vm_polling(rg, name, until_deleted), **kwargs)
        except HttpResponseError as err:
            if not kwargs.get("force_deletion") or not refuses_force(err):
                raise
            log(name, "Azure refuses to force-delete VM %s (%s): deleting it without force", name, err.message)
            return await vms.begin_delete(rg, name, polling=clients.vm_polling(rg, name, until_deleted),
                                          **{**kwargs, "force_deletion": False})

    def options(vm: Any) -> dict[str, Any]:
        return {"force_deletion": force_deletion(vm, force_enabled, inp.force)}

    owner = owner_of(clients, rg, name, inp.owner_workflow_id)
    # Azure takes no If-Match on a VM DELETE: the ownership check is the read (or the conditional
    # deleteOption PATCH) this worker made at most TRUST_S ago, else a GET now.
    seen = clients.read_cache.vm(rg, name, within_s=TRUST_S)
    if seen is None:  # a crowd's shared list of the group, at most TRUST_S old (activities/reading/group_snapshots.py)
        _, seen = await clients.snapshots.vm(rg, name, cm.VirtualMachine)
    if await _delete_owned("VM", name, owner, lambda: vms.get(rg, name), begin, seen, options):
        clients.read_cache.saw_deleted(rg, name)
    else:
        clients.read_cache.saw_vm(rg, name, None)


async def delete_nic(clients: AzureClients, inp: DeleteResourceInput) -> None:
    await _delete_named("NIC", clients, inp, clients.network.network_interfaces)


async def delete_public_ip(clients: AzureClients, inp: DeleteResourceInput) -> None:
    await _delete_named("public IP", clients, inp, clients.network.public_ip_addresses)


async def delete_disk(clients: AzureClients, inp: DeleteResourceInput) -> None:
    await _delete_named("disk", clients, inp, clients.compute.disks)


async def _delete_named(kind: str, clients: AzureClients, inp: DeleteResourceInput, operations: Any) -> None:
    """A NIC or disk of the machine, by name: `operations` is the SDK's operations group for its type."""
    rg = inp.machine.resource_group
    await _delete_owned(
        kind, inp.name, owner_of(clients, rg, inp.machine.name, inp.owner_workflow_id),
        lambda: operations.get(rg, inp.name),
        lambda **kwargs: operations.begin_delete(rg, inp.name, polling=clients.polling(), **kwargs),
    )
