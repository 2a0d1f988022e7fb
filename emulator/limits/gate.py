"""Which limits a request meets, by profile: ARM's buckets first (as ARM throttles before it routes), then the
provider's (network windows, compute policies). Each step is a few dict lookups: O(1) per request."""

from __future__ import annotations

import time
from typing import Any

from emulator.arm import arm_ids
from emulator.arm.arm_ids import Scope
from emulator.arm.store import ResourceStore
from emulator.limits.arm import ArmLimits
from emulator.limits.compute import POLICY_OF, ComputeLimits
from emulator.limits.network import NetworkLimits
from emulator.limits.profile import budgets_with
from emulator.limits.refusal import Refusal

_NETWORK_TYPES = frozenset({"networkInterfaces", "virtualNetworks", "subnets"})
_VM_TYPE = "Microsoft.Compute/virtualMachines"


class Limits:
    def __init__(self) -> None:
        self.configure({})

    def configure(self, overrides: dict[str, dict[str, Any]]) -> None:
        """New budgets (Azure's with `overrides`); every bucket and window starts full."""
        budgets = budgets_with(overrides)
        self.arm = ArmLimits(budgets)
        self.network = NetworkLimits(budgets)
        self.compute = ComputeLimits(budgets)

    def clear(self) -> None:
        self.arm.clear()
        self.network.clear()
        self.compute.clear()

    def arm_take(self, subscription: str, method: str, enforce: bool) -> tuple[str, int, int | None]:
        return self.arm.take(subscription, method, time.monotonic(), enforce)

    def provider_take(self, resource_type: str, verb: str, method: str, params: dict[str, str],
                      body: dict[str, Any], store: ResourceStore) -> tuple[dict[str, str], Refusal | None]:
        """Spend from the provider's budgets of this request. Returns headers to add and a refusal or None."""
        namespace = params.get("namespace", "").lower()
        now = time.monotonic()
        if resource_type in _NETWORK_TYPES or namespace == "microsoft.network":
            return {}, self.network.take(params["sub"], method, resource_type, now)
        operation = f"{resource_type}.{verb}"
        policy = POLICY_OF.get(operation)
        if policy is None or (resource_type == "operations" and namespace != "microsoft.compute"):
            return {}, None
        resource, region = _target(params, body, store)
        header, refusal = self.compute.take(policy, params["sub"], region, resource, now)
        return {"x-ms-ratelimit-remaining-resource": header}, refusal


def _target(params: dict[str, str], body: dict[str, Any], store: ResourceStore) -> tuple[str | None, str]:
    """The resource a compute request addresses (its per-resource bucket: a VM id or an operation id) and
    the region it counts in: the path's location, the VM's, the new VM's body, else its group's."""
    location = params.get("location")
    resource = params.get("id")
    if "name" in params and "rg" in params:
        vm_id = Scope(params["sub"], params["rg"]).resource_id(_VM_TYPE, params["name"])
        resource = arm_ids.key(vm_id)
        vm = store.get(vm_id)
        location = (vm.body.get("location") if vm else None) or body.get("location")
    if not location and "rg" in params:
        group = store.get(Scope(params["sub"], params["rg"]).group_id())
        location = group.body.get("location") if group else None
    return resource, str(location or "").replace(" ", "").lower()
