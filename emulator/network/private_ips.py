"""Private addresses in a subnet, handed out in order as Azure does (its first four addresses reserved), to NIC
ip configurations and load balancer frontends alike, so no two of them share one."""

from __future__ import annotations

import ipaddress

from emulator.arm import arm_ids
from emulator.state import EmulatorState


def next_private_ip(state: EmulatorState, subnet_ref: str | None) -> str | None:
    if not subnet_ref:
        return None
    subnet = state.store.get(subnet_ref)
    prefix = subnet.properties.get("addressPrefix") if subnet else None
    if not prefix:
        return None
    network = ipaddress.ip_network(prefix, strict=False)
    key = arm_ids.key(subnet_ref)
    offset = state.next_ip.get(key, 4)  # Azure reserves the first four addresses
    state.next_ip[key] = offset + 1
    return str(network.network_address + offset % max(network.num_addresses, 1))
