"""MachineSpec fields of issue 28 (identity, gallery images, marketplace plan, boot diagnostics): their models and
local checks. Each ARM resource id is checked for its type's shape, so a typo is refused before anything is made."""

import re
from enum import StrEnum
from typing import Annotated, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

USER_ASSIGNED_IDENTITY_ID = re.compile(
    r"/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.ManagedIdentity/userAssignedIdentities/[^/]+",
    re.IGNORECASE,
)
# A managed image, or a gallery image (its latest version) or image version, in the operator's subscription.
IMAGE_RESOURCE_ID = re.compile(
    r"/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/"
    r"(images/[^/]+|galleries/[^/]+/images/[^/]+(/versions/[^/]+)?)",
    re.IGNORECASE,
)
# Azure's ids of a directly shared and of a community gallery image (version), as ImageReference takes them.
SHARED_GALLERY_IMAGE_ID = re.compile(r"/SharedGalleries/[^/]+/Images/[^/]+(/Versions/[^/]+)?", re.IGNORECASE)
COMMUNITY_GALLERY_IMAGE_ID = re.compile(r"/CommunityGalleries/[^/]+/Images/[^/]+(/Versions/[^/]+)?",
                                        re.IGNORECASE)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class IdentityType(StrEnum):
    SYSTEM_ASSIGNED = "SystemAssigned"
    USER_ASSIGNED = "UserAssigned"
    BOTH = "SystemAssigned, UserAssigned"


class Identity(_Strict):
    """The VM's managed identities (Azure's VirtualMachineIdentity): a system-assigned one Azure makes with the VM,
    and/or user-assigned ones that exist already, by resource id."""

    type: IdentityType = Field(description="SystemAssigned, UserAssigned, or \"SystemAssigned, UserAssigned\"")
    user_assigned_identities: list[str] = Field(
        [], description="Resource ids of user-assigned identities: /subscriptions/<s>/resourceGroups/<rg>/"
                        "providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>")

    @field_validator("user_assigned_identities")
    @classmethod
    def _ids(cls, ids: list[str]) -> list[str]:
        for identity_id in ids:
            if not USER_ASSIGNED_IDENTITY_ID.fullmatch(identity_id):
                raise ValueError(f"{identity_id!r} is not a user-assigned identity id: /subscriptions/<id>/"
                                 "resourceGroups/<rg>/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>")
        lowered = [identity_id.lower() for identity_id in ids]
        if len(set(lowered)) != len(lowered):
            raise ValueError("an identity is listed twice (ARM ids ignore case)")
        return ids

    @model_validator(mode="after")
    def _ids_match_type(self) -> Self:
        user = self.type in (IdentityType.USER_ASSIGNED, IdentityType.BOTH)
        if user and not self.user_assigned_identities:
            raise ValueError(f"user_assigned_identities: type {self.type.value} needs at least one identity id")
        if not user and self.user_assigned_identities:
            raise ValueError("user_assigned_identities given but type is SystemAssigned: use "
                             "\"SystemAssigned, UserAssigned\" or UserAssigned")
        return self


class PurchasePlan(_Strict):
    """A marketplace image's purchase plan (Azure's `plan`): the image's publisher, offer (`product`) and plan."""

    name: str = Field(min_length=1, description="The plan id (often the image's sku)")
    publisher: str = Field(min_length=1, description="The publisher id")
    product: str = Field(min_length=1, description="The offer id")


def check_image_id(value: str) -> str:
    if value and not IMAGE_RESOURCE_ID.fullmatch(value):
        raise ValueError("a managed image or gallery image (version) id: /subscriptions/<id>/resourceGroups/<rg>/"
                         "providers/Microsoft.Compute/images/<name> or .../galleries/<g>/images/<i>/versions/<v>")
    return value


def check_shared_gallery_image_id(value: str) -> str:
    if value and not SHARED_GALLERY_IMAGE_ID.fullmatch(value):
        raise ValueError("a shared gallery image id: /SharedGalleries/<unique name>/Images/<image>[/Versions/<v>]")
    return value


def check_community_gallery_image_id(value: str) -> str:
    if value and not COMMUNITY_GALLERY_IMAGE_ID.fullmatch(value):
        raise ValueError("a community gallery image id: /CommunityGalleries/<public name>/Images/<image>"
                         "[/Versions/<v>]")
    return value


ImageId = Annotated[str, AfterValidator(check_image_id)]
SharedGalleryImageId = Annotated[str, AfterValidator(check_shared_gallery_image_id)]
CommunityGalleryImageId = Annotated[str, AfterValidator(check_community_gallery_image_id)]
