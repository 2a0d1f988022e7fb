"""The demo landscape `--seed` creates: names every test and demo may rely on, and `seed()` that makes it.

Light on purpose (no backend import at run time): the worker, CLI and benches import the names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.arm_ids import Scope

if TYPE_CHECKING:
    from emulator.backends.registry import Backends

SEED_SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
SEED_TENANT = "00000000-0000-0000-0000-000000000001"
SEED_RESOURCE_GROUP = "azmc-demo"
SEED_LOCATION = "westeurope"
SEED_VNET = "azmc-vnet"
SEED_VNET_PREFIX = "10.0.0.0/16"
SEED_SUBNET = "default"
SEED_SUBNET_PREFIX = "10.0.0.0/24"


def seed_vnet_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    return (f"/subscriptions/{subscription}/resourceGroups/{SEED_RESOURCE_GROUP}/providers/"
            f"Microsoft.Network/virtualNetworks/{SEED_VNET}")


def seed_subnet_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    return f"{seed_vnet_id(subscription)}/subnets/{SEED_SUBNET}"


def seed(backends: Backends) -> None:
    """Create the demo resource group, vnet and subnet. Needs a running event loop (the vnet PUT is a
    long-running operation, instant here)."""
    settings = backends.state.settings
    profile = settings.latency_profile
    settings.latency_profile = "instant"  # the seed exists at once, whatever the profile
    try:
        subscription = backends.state.config.subscription
        backends.groups.put(subscription, SEED_RESOURCE_GROUP, {"location": SEED_LOCATION})
        backends.vnets.put(
            Scope(subscription, SEED_RESOURCE_GROUP),
            SEED_VNET,
            {
                "location": SEED_LOCATION,
                "properties": {
                    "addressSpace": {"addressPrefixes": [SEED_VNET_PREFIX]},
                    "subnets": [{"name": SEED_SUBNET, "properties": {"addressPrefix": SEED_SUBNET_PREFIX}}],
                },
            },
        )
    finally:
        settings.latency_profile = profile
