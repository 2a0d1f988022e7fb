"""Deterministic Azure names and tags (MCM-compatible). Pure, so workflows can use them too."""

import hashlib

MACHINE_TAG = "azmc-machine"
POOL_TAG = "azmc-pool"
# `<installation id>/<workflow id>`: which azmc installation, and which of its workflows, owns a resource
# (activities/ownership.py decides with it; resources without it are adopted once, see there).
OWNER_TAG = "azmc-owner"
# When the fleet sweep first saw a resource orphaned while Temporal knew no workflow of its owner, e.g.
# `2026-12-03T06:12:27Z`: its grace counts from then (models/sweep.py), through sweeps and worker restarts.
ORPHAN_SEEN_TAG = "azmc-orphan-seen"
# An installation id: no '/', so the owner tag's value splits unambiguously; short enough that the value
# (with `machine/<resource group>/<name>`, at most 164 characters) stays within Azure's 256.
INSTALLATION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


def nic_name(vm_name: str) -> str:
    return f"{vm_name}-nic"


def public_ip_name(vm_name: str) -> str:
    """The machine's public IP (spec `public_ip`), named like its NIC."""
    return f"{vm_name}-pip"


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


POOL_WORKFLOW_ID_PREFIX = "pool/"
# A pool's machines are `<pool>-<suffix>`: a suffix of this many lower-case letters and digits.
POOL_MACHINE_SUFFIX = 5
_SUFFIX_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def pool_workflow_id(resource_group: str, name: str) -> str:
    """The one workflow id of a pool: `pool/<resource group>/<name>`."""
    return f"{POOL_WORKFLOW_ID_PREFIX}{resource_group}/{name}"


def pool_machine_name(pool: str, revision: str, counter: int, life: str = "") -> str:
    """`<pool>-<5 chars>` from the pool's life (its first run's id: a pool applied again after it was deleted or
    terminated is a new life), the template revision and the pool's counter: the same inputs always give the same
    name (replay, retries), a new counter or a new life a new one (the pool skips the rare hash collision)."""
    seed = f"{life}/{revision}/{counter}" if life else f"{revision}/{counter}"
    digest = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")
    suffix = ""
    for _ in range(POOL_MACHINE_SUFFIX):
        digest, index = divmod(digest, len(_SUFFIX_ALPHABET))
        suffix += _SUFFIX_ALPHABET[index]
    return f"{pool}-{suffix}"


def is_pool_machine_name(pool: str, name: str) -> bool:
    """Whether `name` is one pool_machine_name gives pool `pool`: `<pool>-` and a suffix of its alphabet."""
    suffix = name.removeprefix(f"{pool}-")
    return suffix != name and len(suffix) == POOL_MACHINE_SUFFIX and all(c in _SUFFIX_ALPHABET for c in suffix)
