"""`seed()`: makes the demo landscape of emulator/seed.py (resource group, vnet, subnet) through the backends."""

from emulator.arm.arm_ids import Scope
from emulator.network.network_extras import ASG_TYPE, LB_TYPE, NSG_TYPE
from emulator.registry import Backends
from emulator.seed import (
    SEED_ASG,
    SEED_BACKEND_POOL,
    SEED_LOAD_BALANCER,
    SEED_LOCATION,
    SEED_NSG,
    SEED_RESOURCE_GROUP,
    SEED_SUBNET,
    SEED_SUBNET_PREFIX,
    SEED_VNET,
    SEED_VNET_PREFIX,
)


def seed(backends: Backends) -> None:
    """Create the demo resource group, vnet and subnet, and an NSG, an ASG and a load balancer with a pool.
    Needs a running event loop (the vnet PUT is a
    long-running operation, instant here)."""
    settings = backends.state.settings
    profile = settings.latency_profile
    settings.latency_profile = "instant"  # the seed exists at once, whatever the profile
    try:
        subscription = backends.state.config.subscription
        backends.state.catalog.seed(subscription)
        backends.state.reservations.seed(subscription, SEED_LOCATION)
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
        scope = Scope(subscription, SEED_RESOURCE_GROUP)
        extras = backends.network_extras
        extras.put(NSG_TYPE, scope, SEED_NSG, {"location": SEED_LOCATION})
        extras.put(ASG_TYPE, scope, SEED_ASG, {"location": SEED_LOCATION})
        extras.put(LB_TYPE, scope, SEED_LOAD_BALANCER, {
            "location": SEED_LOCATION, "properties": {"backendAddressPools": [{"name": SEED_BACKEND_POOL}]}})
    finally:
        settings.latency_profile = profile
