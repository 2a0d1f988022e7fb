"""What the seed holds for issue 28's VM features: user-assigned identities, images and a marketplace plan that
exist. Light on purpose (names only), like emulator/seed.py."""

from emulator.seed import SEED_RESOURCE_GROUP, SEED_SUBSCRIPTION

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
