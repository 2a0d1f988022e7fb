"""What exists in Azure for one machine. A NIC or disk alone is a partial machine, never a VM."""

from pydantic import BaseModel, ConfigDict

from models.foresight import RedeployWindow

# Power states of a VM that exists, is provisioned, and only needs starting (never rebuilding).
STOPPED_POWER_STATES = ("stopped", "stopping", "deallocated", "deallocating")


class VmState(BaseModel):
    model_config = ConfigDict(frozen=True)

    provisioning_state: str = ""  # Creating, Succeeded, Failed, Deleting, ...
    power_state: str = ""  # running, stopped, deallocated, starting, ... ("" when unknown)
    # The VM agent's displayStatus in the instance view: "Ready", "Not Ready", or "" when Azure shows none
    # (deallocated, or a read without the instance view), and its message.
    agent: str = ""
    agent_message: str = ""
    # While Azure plans to redeploy the VM: when its owner may do it first (the instance view's
    # maintenanceRedeployStatus); None otherwise.
    redeploy_window: RedeployWindow | None = None


class DataDiskRef(BaseModel):
    """A data disk of the machine: the data that must survive every recovery."""

    model_config = ConfigDict(frozen=True)

    name: str
    lun: int = -1  # -1 when the disk is not attached (read by name, the VM being gone)
    id: str = ""  # ARM id
    unique_id: str = ""  # Azure's uniqueId: changes only when the disk is re-created. "" when not read
    delete_option: str = ""  # as the VM has it: Detach keeps the disk when the VM is deleted

    @property
    def survives_vm_delete(self) -> bool:
        return self.delete_option.lower() == "detach"

    def describe(self) -> str:
        return f"{self.name} (uniqueId {self.unique_id})" if self.unique_id else self.name


class Inventory(BaseModel):
    """Every resource of the machine that exists. provider_id and node_name are set only when the VM exists."""

    model_config = ConfigDict(frozen=True)

    provider_id: str = ""
    node_name: str = ""
    vm_state: VmState = VmState()
    nic_names: list[str] = []
    public_ip_names: list[str] = []  # spec `public_ip`: deleted after the NIC that holds it
    disk_names: list[str] = []  # every disk, OS disk included
    data_disks: list[DataDiskRef] = []  # the data disks among them, as far as they were read
    # Resources under this machine's names that another owner holds (activities/ownership.py): never
    # touched, not part of the machine, shown so an operator sees why azmc leaves them alone.
    not_ours: list[str] = []
    # The principal id of the VM's system-assigned managed identity, as Azure reports it ("" without one).
    identity_principal_id: str = ""

    @property
    def has_vm(self) -> bool:
        return bool(self.provider_id)

    @property
    def is_empty(self) -> bool:
        return not (self.provider_id or self.nic_names or self.disk_names or self.public_ip_names)

    @property
    def vm_failed(self) -> bool:
        return self.has_vm and self.vm_state.provisioning_state == "Failed"

    @property
    def vm_healthy(self) -> bool:
        return (
            self.has_vm
            and self.vm_state.provisioning_state == "Succeeded"
            and self.vm_state.power_state in ("", "running", "starting")
        )

    @property
    def vm_stopped(self) -> bool:
        """Powered off (out of band, or a Spot eviction with policy Deallocate): start it, never rebuild it.

        Whatever the provisioning state: a start that failed (AllocationFailed) leaves the VM Failed and
        still deallocated, and starting it again is still the way back."""
        return self.has_vm and self.vm_state.power_state in STOPPED_POWER_STATES

    def with_unique_ids(self, known: dict[str, str]) -> "Inventory":
        """This inventory with the data disks' uniqueIds filled in from `known` (ARM id or name -> uniqueId,
        case-insensitive) where this read did not return one (a VM GET names its disks, not their uniqueIds)."""
        lowered = {key.lower(): value for key, value in known.items() if value}
        disks = [disk if disk.unique_id else disk.model_copy(update={
            "unique_id": lowered.get(disk.id.lower()) or lowered.get(disk.name.lower(), "")})
            for disk in self.data_disks]
        return self.model_copy(update={"data_disks": disks})

    def unique_ids(self) -> dict[str, str]:
        """ARM id -> uniqueId of the data disks whose uniqueId is known."""
        return {disk.id: disk.unique_id for disk in self.data_disks if disk.id and disk.unique_id}

    def summary(self) -> str:
        vm = f"VM {self.node_name} ({self.vm_state.provisioning_state}/{self.vm_state.power_state or '?'})"
        parts = [vm] if self.has_vm else ["no VM"]
        parts.append(f"NICs: {', '.join(self.nic_names) or 'none'}")
        parts.append(f"disks: {', '.join(self.disk_names) or 'none'}")
        if self.identity_principal_id:
            parts.append(f"system-assigned identity principal {self.identity_principal_id}")
        if self.public_ip_names:
            parts.append(f"public IPs: {', '.join(self.public_ip_names)}")
        if self.not_ours:
            parts.append(f"not ours, left alone: {', '.join(self.not_ours)}")
        return "; ".join(parts)
