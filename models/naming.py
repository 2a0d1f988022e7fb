"""Deterministic Azure names and tags (MCM-compatible). Pure, so workflows can use them too."""

MACHINE_TAG = "azmc-machine"
POOL_TAG = "azmc-pool"
# `<installation id>/<workflow id>`: which azmc installation, and which of its workflows, owns a resource
# (activities/ownership.py decides with it; resources without it are adopted once, see there).
OWNER_TAG = "azmc-owner"
# An installation id: no '/', so the owner tag's value splits unambiguously; short enough that the value
# (with `machine/<resource group>/<name>`, at most 164 characters) stays within Azure's 256.
INSTALLATION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


def nic_name(vm_name: str) -> str:
    return f"{vm_name}-nic"


def os_disk_name(vm_name: str) -> str:
    return f"{vm_name}-os-disk"


def data_disk_name(vm_name: str, lun: int, disk_name: str = "") -> str:
    if disk_name:
        return f"{vm_name}-{disk_name}-{lun}-data-disk"
    return f"{vm_name}-{lun}-data-disk"


def owner_value(installation_id: str, workflow_id: str) -> str:
    """The owner tag's value."""
    return f"{installation_id}/{workflow_id}"


WORKFLOW_ID_PREFIX = "machine/"


def workflow_id(resource_group: str, name: str) -> str:
    """The one workflow id of a machine: `machine/<resource group>/<name>`."""
    return f"{WORKFLOW_ID_PREFIX}{resource_group}/{name}"


def machine_of(wf_id: str) -> tuple[str, str] | None:
    """(resource group, name) of a machine's workflow id; None when `wf_id` is not of that form."""
    rest = wf_id.removeprefix(WORKFLOW_ID_PREFIX)
    parts = rest.split("/")
    if rest == wf_id or len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def provider_id(vm_arm_id: str) -> str:
    """The Kubernetes cloud-provider form of a VM id."""
    return f"azure://{vm_arm_id}"
