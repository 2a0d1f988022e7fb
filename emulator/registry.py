"""All backends over one shared state."""

from __future__ import annotations

from dataclasses import dataclass

from emulator.compute.disks import DisksBackend
from emulator.compute.virtual_machines import VirtualMachinesBackend
from emulator.compute.vm_extensions import VmExtensionsBackend
from emulator.compute.vm_maintenance import VmMaintenanceBackend
from emulator.compute.vm_power import VmPowerBackend
from emulator.compute.vm_repair import VmRepairBackend
from emulator.network.network_extras import NetworkExtrasBackend
from emulator.network.network_interfaces import NetworkInterfacesBackend
from emulator.network.virtual_networks import VirtualNetworksBackend
from emulator.resources.resource_groups import ResourceGroupsBackend
from emulator.state import EmulatorState


@dataclass
class Backends:
    state: EmulatorState
    groups: ResourceGroupsBackend
    vnets: VirtualNetworksBackend
    nics: NetworkInterfacesBackend
    disks: DisksBackend
    vms: VirtualMachinesBackend
    vm_power: VmPowerBackend
    vm_repair: VmRepairBackend
    network_extras: NetworkExtrasBackend
    vm_extensions: VmExtensionsBackend
    vm_maintenance: VmMaintenanceBackend

    @classmethod
    def create(cls, state: EmulatorState) -> Backends:
        nics = NetworkInterfacesBackend(state)
        disks = DisksBackend(state)
        vms = VirtualMachinesBackend(state, nics, disks)
        power = VmPowerBackend(state, vms)
        return cls(state, ResourceGroupsBackend(state), VirtualNetworksBackend(state), nics, disks, vms,
                   power, VmRepairBackend(state), NetworkExtrasBackend(state),
                   VmExtensionsBackend(state), VmMaintenanceBackend(state, vms, power))
