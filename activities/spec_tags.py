"""update_tags: `update_spec`'s tag change applied to the running machine's VM, NICs and disks."""

from activities.clients import AzureClients
from activities.ownership import Tags, owner_of
from activities.retag import retag_machine
from activities.vm_reader import get_vm, vm_inventory
from models.activity_io import TagsUpdated, UpdateTagsInput
from models.inventory import Inventory


async def update_tags(clients: AzureClients, inp: UpdateTagsInput) -> TagsUpdated:
    """update_spec's tag change: the spec's tags on every resource of the machine that is ours; tags the
    previous spec set and this one does not are removed; tags others added (Azure Policy, people) stay."""
    spec = inp.spec
    owner = owner_of(clients, spec.resource_group, spec.name)
    wanted = owner.tags(spec)
    dropped = {key.lower() for key in (*inp.remove, *wanted)}

    def new_tags(tags: Tags) -> dict[str, str]:
        return {**{k: v for k, v in (tags or {}).items() if k.lower() not in dropped}, **wanted}

    vm = await get_vm(clients, spec.resource_group, spec.name)
    attached = vm_inventory(vm) if vm is not None else Inventory()
    done = await retag_machine(clients, owner, spec, vm, attached, new_tags, spec_names=True)
    return TagsUpdated(changed=done.changed, not_ours=done.not_ours)
