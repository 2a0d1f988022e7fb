"""The VM PUT body's disk-encryption and placement parts: encryption at host, a disk encryption set on every disk
azmc creates, an ephemeral OS disk, and the capacity reservation group, proximity placement group and
availability set the VM joins. Nothing is added for a spec that sets none of them (the body stays as before)."""

from azure.mgmt.compute import models as cm

from models.spec import MachineSpec


def _encrypted_with(managed: cm.ManagedDiskParameters | None, des_id: str) -> None:
    if managed is not None and not managed.id:  # a disk attached by id keeps the encryption it was created with
        managed.disk_encryption_set = cm.DiskEncryptionSetParameters(id=des_id)


def apply_disks_and_placement(vm: cm.VirtualMachine, spec: MachineSpec) -> None:
    """Add to `vm` (built by activities/vm_body.py) what the spec's disk and placement fields ask for."""
    storage = vm.storage_profile
    ephemeral = spec.os_disk.ephemeral
    if ephemeral is not None and storage is not None and storage.os_disk is not None:
        # Azure's ephemeral OS disk: local storage of the host (cache, resource or NVMe disk), read-only caching,
        # gone with the VM.
        storage.os_disk.diff_disk_settings = cm.DiffDiskSettings(option=cm.DiffDiskOptions.LOCAL,
                                                                 placement=ephemeral.placement)
        storage.os_disk.caching = cm.CachingTypes.READ_ONLY
    if spec.disk_encryption_set_id and storage is not None:
        # An ephemeral OS disk is not a managed disk at rest: the set encrypts the data disks only (the host
        # encrypts an ephemeral OS disk with encryption_at_host).
        if storage.os_disk is not None and ephemeral is None:
            _encrypted_with(storage.os_disk.managed_disk, spec.disk_encryption_set_id)
        for disk in storage.data_disks or []:
            _encrypted_with(disk.managed_disk, spec.disk_encryption_set_id)
    if spec.encryption_at_host:
        vm.security_profile = cm.SecurityProfile(encryption_at_host=True)
    if spec.capacity_reservation_group_id:
        vm.capacity_reservation = cm.CapacityReservationProfile(
            capacity_reservation_group=cm.SubResource(id=spec.capacity_reservation_group_id))
    if spec.proximity_placement_group_id:
        vm.proximity_placement_group = cm.SubResource(id=spec.proximity_placement_group_id)
    if spec.availability_set_id:
        vm.availability_set = cm.SubResource(id=spec.availability_set_id)
