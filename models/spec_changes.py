"""What differs between a running machine's spec and a new one, and which differences it can take in place.

`update_spec` (workflows/machine/spec_update.py) applies tag, pool, timeout, identity, boot diagnostics and
foresight changes, and the NIC's NSG, ASG and load balancer pool memberships (a NIC PUT), to the running machine;
any other change needs a new VM (Azure cannot change a VM's image, subnet, zone, admin user or key in
place, and azmc does not resize or re-disk a running VM), so it is refused with the fields named.
Pure: the workflow and the CLI use the same rules.
"""

from typing import Any

from pydantic import BaseModel

from models.spec import MachineSpec

# Changed on the running machine: tags (and pool, which is a tag and a search attribute) by a tag PATCH
# on the VM, NIC and disks; timeouts inside the workflow.
# The NIC's memberships (issue 28) by a NIC PUT: Azure changes them on a running VM's NIC.
NIC_FIELDS = ("network_security_group_id", "application_security_group_ids", "load_balancer_backend_address_pool_ids")
# Changed on the running VM by one VM PATCH (update_vm_in_place): Azure takes them without a new VM.
VM_PATCH_FIELDS = ("identity", "boot_diagnostics", "foresight")
IN_PLACE = ("tags", "pool", "timeouts", "capacity_order", *VM_PATCH_FIELDS, *NIC_FIELDS)
# Fields that are tags on Azure resources (a change re-tags them).
TAG_FIELDS = ("tags", "pool")
_SIZE_NOTE = "vm_sizes: azmc does not resize a running VM"
# customData is fixed when the VM is created (Azure refuses a change). Azure could take new userData on a
# running VM, but a VM reads it at boot, so azmc treats both as what a new VM starts with: never a silent
# in-place change the machine would not act on.
_BOOTSTRAP_NOTE = "custom_data/user_data: a VM reads its bootstrap data when it is created"


class SpecUpdate(BaseModel):
    """The answer of the `update_spec` update."""

    changed: list[str] = []  # fields that differ, dotted ("tags.team", "timeouts.health")
    message: str = ""
    tagged: list[str] = []  # resources whose tags were changed now ("VM vm1", "NIC vm1-nic", ...)
    updated: list[str] = []  # resources changed otherwise now ("NIC vm1-nic": its memberships)


def _diff(old: Any, new: Any, path: str) -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict) and path.split(".")[0] in ("tags", "timeouts", "image",
                                                                                 "os_disk", "spot"):
        return [found for key in sorted(set(old) | set(new), key=str)
                for found in _diff(old.get(key), new.get(key), f"{path}.{key}")]
    return [path] if old != new else []


def changed_fields(old: MachineSpec, new: MachineSpec) -> list[str]:
    """Every field that differs, one level into tags, timeouts, image, os_disk and spot."""
    before, after = old.model_dump(mode="json"), new.model_dump(mode="json")
    if after["accelerated_networking"] is None:
        # null is "what the size supports", decided when the NIC is created: a running NIC keeps its setting
        # (a spec stored before null existed says false, the default then).
        after["accelerated_networking"] = before["accelerated_networking"]
    return [found for field in MachineSpec.model_fields for found in _diff(before[field], after[field], field)]


def needs_new_vm(changed: list[str]) -> list[str]:
    """The changed fields a running machine cannot take in place."""
    return [field for field in changed if field.split(".")[0] not in IN_PLACE]


def vm_patch_needed(changed: list[str]) -> bool:
    return any(field.split(".")[0] in VM_PATCH_FIELDS for field in changed)


def nic_changed(changed: list[str]) -> bool:
    """The NIC's memberships differ: one NIC PUT applies them."""
    return any(field.split(".")[0] in NIC_FIELDS for field in changed)


def tags_changed(changed: list[str]) -> bool:
    return any(field.split(".")[0] in TAG_FIELDS for field in changed)


def refusal(old: MachineSpec, new: MachineSpec) -> str:
    """Why `new` cannot replace `old` on the running machine, and what to do instead; "" when it can."""
    if (new.name, new.resource_group) != (old.name, old.resource_group):
        return (f"update_spec changes machine {old.resource_group}/{old.name} only; machine "
                f"{new.resource_group}/{new.name} has its own workflow (azmc apply starts it)")
    fields = needs_new_vm(changed_fields(old, new))
    if not fields:
        return ""
    notes = [_SIZE_NOTE] if "vm_sizes" in fields else []
    notes += [_BOOTSTRAP_NOTE] if {"custom_data", "user_data"} & set(fields) else []
    note = f" ({'; '.join(notes)})" if notes else ""
    return (f"{', '.join(fields)} cannot change on a running machine{note}: that needs a new VM. "
            f"Delete the machine (azmc delete {old.resource_group}/{old.name} --wait; its disks go with it) "
            "and apply the new spec; only tags, pool, timeouts, identity, boot_diagnostics and the NIC's security "
            "groups and load balancer pools change in place")


def removed_tag_keys(old: MachineSpec, new: MachineSpec) -> list[str]:
    """Tag names azmc set from `old` that `new` no longer has (lower case: Azure ignores tag name case)."""
    kept = {key.lower() for key in new.machine_tags()}
    return sorted({key.lower() for key in old.machine_tags()} - kept)
