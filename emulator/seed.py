"""The demo landscape `--seed` creates: names every test and demo may rely on (emulator/seeding.py makes it).

Light on purpose (no backend import): the worker, CLI, benches and the emulator's settings import the names.
"""

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
# What a NIC may join (issue 28): a security group, an application security group, a load balancer's pool.
SEED_NSG = "azmc-nsg"
SEED_ASG = "azmc-asg"
SEED_LOAD_BALANCER = "azmc-lb"
SEED_BACKEND_POOL = "azmc-pool"


def seed_network_id(kind: str, name: str, subscription: str = SEED_SUBSCRIPTION) -> str:
    """`kind`: networkSecurityGroups, applicationSecurityGroups or loadBalancers."""
    return (f"/subscriptions/{subscription}/resourceGroups/{SEED_RESOURCE_GROUP}/providers/"
            f"Microsoft.Network/{kind}/{name}")


def seed_nsg_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    return seed_network_id("networkSecurityGroups", SEED_NSG, subscription)


def seed_asg_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    return seed_network_id("applicationSecurityGroups", SEED_ASG, subscription)


def seed_backend_pool_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    lb = seed_network_id("loadBalancers", SEED_LOAD_BALANCER, subscription)
    return f"{lb}/backendAddressPools/{SEED_BACKEND_POOL}"
