"""update_vm_in_place: update_spec's identity and boot diagnostics changes on the running VM, one VM PATCH
(`begin_update`) carrying only those properties; the VM (its vmId, disks, NIC) stays."""

from azure.mgmt.compute import models as cm

from activities.arm import classified, log_start, wait_heartbeating
from activities.clients import AzureClients
from activities.errors import error
from activities.ownership import owner_of
from activities.reading.vm import get_vm, vm_inventory
from activities.vm_features_body import diagnostics_body, identity_body, scheduled_events_policy
from models.errors import ErrorType
from models.inventory import Inventory
from models.spec import MachineSpec


def _identity_update(spec: MachineSpec, vm: cm.VirtualMachine) -> cm.VirtualMachineIdentity:
    """The spec's identity; a user-assigned identity the VM has and the spec no longer lists is set to null (a
    PATCH merges the map), and no identity at all is type None."""
    wanted = identity_body(spec)
    if wanted is None:
        return cm.VirtualMachineIdentity(type="None")
    kept = {key.lower() for key in (wanted.user_assigned_identities or {})}
    had = (vm.identity.user_assigned_identities or {}) if vm.identity is not None else {}
    dropped = {identity_id: None for identity_id in had if identity_id.lower() not in kept}
    if dropped and wanted.user_assigned_identities is not None:
        wanted.user_assigned_identities = {**wanted.user_assigned_identities, **dropped}  # type: ignore[dict-item]  # in a PATCH, null removes an identity (Azure's rule); the SDK's types omit it
    return wanted


async def update_vm_in_place(clients: AzureClients, spec: MachineSpec) -> Inventory:
    vm = await get_vm(clients, spec.resource_group, spec.name)
    if vm is None:
        raise error(ErrorType.NOT_FOUND, f"VM {spec.name} does not exist: nothing to update in place")
    owner_of(clients, spec.resource_group, spec.name).require("VM", spec.name, vm.tags)
    update = cm.VirtualMachineUpdate(identity=_identity_update(spec, vm), diagnostics_profile=diagnostics_body(spec))  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
    if spec.foresight or vm.scheduled_events_policy is not None:  # sent when asked for, or to turn it off
        update.scheduled_events_policy = scheduled_events_policy(spec)
    log_start(spec.name, "updating VM in place (identity, boot diagnostics, foresight)")
    async with classified(f"update VM {spec.name} in place"):
        poller = await clients.compute.virtual_machines.begin_update(spec.resource_group, spec.name, update,
                                                                     polling=clients.polling())
        await wait_heartbeating(poller)
    # Read again (with its instance view) rather than keep the PATCH's answer, which has no power state.
    clients.read_cache.forget(spec.resource_group, spec.name)
    updated = await get_vm(clients, spec.resource_group, spec.name)
    return vm_inventory(updated) if updated is not None else Inventory()
