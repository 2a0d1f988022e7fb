"""Whether azmc force-deletes a VM: only when nothing of it is kept.

Azure's force delete skips the guest's graceful shutdown and some cleanup, and Microsoft says to use it only
when the disks will not be reused. So a VM whose every disk has deleteOption Delete (all of `delete`'s VMs
once its data disks go with it) is force-deleted: its operation is shorter, fewer status polls. A VM that
keeps a disk (Detach: a recovery, a timed-out creation's cleanup, an orphan whose data stays) says
`forceDeletion=false` explicitly: since api-version 2024-11-01 leaving it out is not the same as false.
"""

from typing import Any

from azure.core.exceptions import HttpResponseError


def every_disk_goes(vm: Any) -> bool:
    """`vm`: the SDK's VirtualMachine; True when its OS disk and every data disk have deleteOption Delete."""
    storage = getattr(vm, "storage_profile", None)
    if storage is None or storage.os_disk is None:
        return False
    disks = [storage.os_disk, *(storage.data_disks or [])]
    # The SDK gives a str enum; str() of it would be its name, .lower() is its value.
    return all((disk.delete_option or "Detach").lower() == "delete" for disk in disks)


def force_deletion(vm: Any, enabled: bool, asked: bool) -> bool:
    """The VM DELETE's `forceDeletion`: `enabled` (AzureConfig.force_delete_vms) or `asked` (a `delete --force`)
    force-delete a VM that keeps nothing; a VM that keeps a disk is never force-deleted, whoever asks."""
    return (enabled or asked) and every_disk_goes(vm)


def refuses_force(err: HttpResponseError) -> bool:
    """Azure's refusal of the force deletion itself (a VM under maintenance control: 409 OperationNotAllowed
    naming 'ForceDelete'); the same DELETE without force is allowed, so the caller sends that instead."""
    error = getattr(err, "error", None)
    code = getattr(error, "code", None) or ""
    message = getattr(error, "message", None) or str(err)
    return code == "OperationNotAllowed" and "forcedelete" in message.lower()
