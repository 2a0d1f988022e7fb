"""MachineSpec's networking fields (issue 28): the NIC's security group, application security groups and load
balancer backend pools, a public IP, and accelerated networking. Each ARM id is checked for its type's shape
here, so a wrong id is refused before anything is created, naming the field (pydantic's `loc`)."""

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

_GROUP = r"/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Network/"
_NAME = r"[^/]+"
_SHAPES = {
    "networkSecurityGroups": re.compile(f"{_GROUP}networkSecurityGroups/{_NAME}", re.IGNORECASE),
    "applicationSecurityGroups": re.compile(f"{_GROUP}applicationSecurityGroups/{_NAME}", re.IGNORECASE),
    "loadBalancers/backendAddressPools": re.compile(
        f"{_GROUP}loadBalancers/{_NAME}/backendAddressPools/{_NAME}", re.IGNORECASE),
}


def _id_of(kind: str, example: str) -> AfterValidator:
    def check(value: str) -> str:
        if value and not _SHAPES[kind].fullmatch(value):
            raise ValueError(f"an ARM id of Microsoft.Network/{kind}: /subscriptions/<id>/resourceGroups/<rg>/"
                             f"providers/Microsoft.Network/{example}")
        return value
    return AfterValidator(check)


NsgId = Annotated[str, _id_of("networkSecurityGroups", "networkSecurityGroups/<name>")]
AsgId = Annotated[str, Field(min_length=1),
                  _id_of("applicationSecurityGroups", "applicationSecurityGroups/<name>")]
BackendPoolId = Annotated[str, Field(min_length=1), _id_of(
    "loadBalancers/backendAddressPools", "loadBalancers/<lb>/backendAddressPools/<pool>")]


def _unique_ids(values: list[str]) -> list[str]:
    lowered = [v.lower() for v in values]  # ARM ids compare case-insensitively
    twice = sorted({v for v in values if lowered.count(v.lower()) > 1})
    if twice:
        raise ValueError(f"{twice[0]} is listed twice")
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
