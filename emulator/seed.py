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


# What the seed holds for the VM features (docs/vm-features.md): user-assigned identities, images and a
# marketplace plan that exist.
SEED_IDENTITIES = ("azmc-identity", "azmc-identity-2")
SEED_GALLERY = "azmcgallery"
SEED_GALLERY_IMAGE = "ubuntu-base"
SEED_GALLERY_IMAGE_VERSION = "1.0.0"
SEED_MANAGED_IMAGE = "azmc-base-image"
SEED_SHARED_GALLERY_IMAGE = "/SharedGalleries/azmc-shared-gallery/Images/ubuntu-base/Versions/1.0.0"
SEED_COMMUNITY_GALLERY_IMAGE = "/CommunityGalleries/azmc-community-1234/Images/ubuntu-base/Versions/1.0.0"
# A marketplace plan whose terms exist and are not accepted until someone accepts them.
SEED_PLAN = {"name": "azmc-plan", "publisher": "azmc-publisher", "product": "azmc-offer"}

_GROUP = f"/subscriptions/{{sub}}/resourceGroups/{SEED_RESOURCE_GROUP}/providers"


def seed_identity_id(name: str = SEED_IDENTITIES[0], subscription: str = SEED_SUBSCRIPTION) -> str:
    return f"{_GROUP.format(sub=subscription)}/Microsoft.ManagedIdentity/userAssignedIdentities/{name}"


def seed_gallery_image_version_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    return (f"{_GROUP.format(sub=subscription)}/Microsoft.Compute/galleries/{SEED_GALLERY}/images/"
            f"{SEED_GALLERY_IMAGE}/versions/{SEED_GALLERY_IMAGE_VERSION}")


def seed_managed_image_id(subscription: str = SEED_SUBSCRIPTION) -> str:
    return f"{_GROUP.format(sub=subscription)}/Microsoft.Compute/images/{SEED_MANAGED_IMAGE}"


def seed_image_ids(subscription: str = SEED_SUBSCRIPTION) -> list[str]:
    """Every image id of the seed; the gallery image without its version is one too (its latest version)."""
    version = seed_gallery_image_version_id(subscription)
    return [version, version.rsplit("/versions/", 1)[0], seed_managed_image_id(subscription),
            SEED_SHARED_GALLERY_IMAGE, SEED_COMMUNITY_GALLERY_IMAGE]
