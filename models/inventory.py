"""What exists in Azure for one machine. A NIC or disk alone is a partial machine, never a VM."""

from pydantic import BaseModel, ConfigDict


class VmState(BaseModel):
    model_config = ConfigDict(frozen=True)

    provisioning_state: str = ""  # Creating, Succeeded, Failed, Deleting, ...
    power_state: str = ""  # running, stopped, deallocated, starting, ... ("" when unknown)


class Inventory(BaseModel):
    """Every resource of the machine that exists. provider_id and node_name are set only when the VM exists."""

    model_config = ConfigDict(frozen=True)

    provider_id: str = ""
    node_name: str = ""
    vm_state: VmState = VmState()
    nic_names: list[str] = []
    disk_names: list[str] = []
    # Resources under this machine's names that another owner holds (activities/ownership.py): never
    # touched, not part of the machine, shown so an operator sees why azmc leaves them alone.
    not_ours: list[str] = []

    @property
    def has_vm(self) -> bool:
        return bool(self.provider_id)

    @property
    def is_empty(self) -> bool:
        return not (self.provider_id or self.nic_names or self.disk_names)

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

    def summary(self) -> str:
        vm = f"VM {self.node_name} ({self.vm_state.provisioning_state}/{self.vm_state.power_state or '?'})"
        parts = [vm] if self.has_vm else ["no VM"]
        parts.append(f"NICs: {', '.join(self.nic_names) or 'none'}")
        parts.append(f"disks: {', '.join(self.disk_names) or 'none'}")
        if self.not_ours:
            parts.append(f"not ours, left alone: {', '.join(self.not_ours)}")
        return "; ".join(parts)
