"""MachineSpec's networking fields (issue 28): the NIC's security group, application security groups and load
balancer backend pools, a public IP, and accelerated networking. Each ARM id is checked for its type's shape and
every name in it for Azure's rule (models/arm_ids.py), so a wrong id is refused before anything is created, naming
the field (pydantic's `loc`)."""

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from models.arm_ids import ASG, BACKEND_POOL, NSG, arm_id

NsgId = Annotated[str, *arm_id(NSG)]
AsgId = Annotated[str, *arm_id(ASG, optional=False)]
BackendPoolId = Annotated[str, *arm_id(BACKEND_POOL, optional=False)]


def _unique_ids(values: list[str]) -> list[str]:
    lowered = [v.lower() for v in values]  # ARM ids compare case-insensitively
    twice = sorted({v for v in values if lowered.count(v.lower()) > 1})
    if twice:
        raise ValueError(f"{twice[0]!r} is listed twice")
    return values


AsgIds = Annotated[list[AsgId], AfterValidator(_unique_ids)]
BackendPoolIds = Annotated[list[BackendPoolId], AfterValidator(_unique_ids)]


class PublicIp(BaseModel):
    """A public IP address `<vm>-pip` azmc creates on the NIC, owned, tagged and deleted with the machine."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Basic public IPs were retired by Azure (2025-09-30): Standard only, whose addresses are Static.
    sku: Literal["Standard"] = Field("Standard", description="the public IP's SKU (Standard: Basic is retired)")
    allocation: Literal["Static"] = Field(
        "Static", description="publicIPAllocationMethod: a Standard public IP is always Static")


NSG_DESCRIPTION = ("networkSecurityGroup of the NIC: an ARM id of Microsoft.Network/networkSecurityGroups; "
                   "changed in place by update_spec (a NIC PUT)")
ASG_DESCRIPTION = ("applicationSecurityGroups of the NIC's ip configuration (ARM ids); changed in place by "
                   "update_spec")
POOL_DESCRIPTION = ("loadBalancerBackendAddressPools of the NIC's ip configuration (ARM ids of "
                    "loadBalancers/<lb>/backendAddressPools/<pool>); changed in place by update_spec")
PUBLIC_IP_DESCRIPTION = ("a public IP address <vm>-pip on the NIC (Standard, Static, in the machine's zone); "
                         "null: none. Changing it needs a new VM")
ACCELERATED_DESCRIPTION = ("enableAcceleratedNetworking of the NIC; null (default): what the VM size supports "
                           "(the resource SKUs API's AcceleratedNetworkingEnabled); true on a size without it "
                           "is refused")
