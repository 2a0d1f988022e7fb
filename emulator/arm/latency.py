"""Operation durations per latency profile, in Azure seconds (the clock applies the time scale)."""

# Rough figures observed on Azure; what matters is their order of magnitude.
_REALISTIC: dict[str, float] = {
    "virtualMachines.put": 45.0,
    "virtualMachines.patch": 20.0,
    "virtualMachines.delete": 30.0,
    # Force deletion skips the guest's graceful shutdown (about a powerOff's 15 s) and some cleanup; Azure
    # gives no figure, only "reducing delete latency": half a delete is the plausible order of magnitude.
    "virtualMachines.forceDelete": 15.0,
    "virtualMachines.powerOff": 15.0,
    "virtualMachines.deallocate": 30.0,
    "virtualMachines.start": 20.0,
    "virtualMachines.restart": 30.0,
    "virtualMachines.redeploy": 120.0,
    "networkInterfaces.put": 2.0,
    "networkInterfaces.delete": 2.0,
    "disks.put": 3.0,
    "disks.delete": 3.0,
    "disks.patch": 2.0,
    "virtualNetworks.put": 3.0,
    "virtualNetworks.delete": 3.0,
    "subnets.put": 2.0,
    "subnets.delete": 2.0,
    "resourceGroups.delete": 10.0,
}


def duration(profile: str, operation: str) -> float:
    """Azure seconds the long-running `operation` ("<resourceType>.<verb>") takes."""
    if profile == "realistic":
        return _REALISTIC.get(operation, 1.0)
    return 0.0
