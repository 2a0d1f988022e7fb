"""MachineSpec fields of issue 28 (identity, gallery images, marketplace plan, boot diagnostics): their models and
local checks. Each ARM resource id is checked for its type's shape and Azure's name rules (models/arm_ids.py), and
each marketplace id for the marketplace's (models/arm_names.py), so a typo is refused before anything is made."""

from enum import StrEnum
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from models.arm_ids import (
    COMMUNITY_GALLERY_IDS,
    IMAGE_IDS,
    SHARED_GALLERY_IDS,
    USER_ASSIGNED_IDENTITY,
    arm_id,
    check_id,
)
from models.arm_names import MARKETPLACE_OFFER, MARKETPLACE_PLAN, MARKETPLACE_PUBLISHER, named

PublisherId = Annotated[str, *named(MARKETPLACE_PUBLISHER)]
OfferId = Annotated[str, *named(MARKETPLACE_OFFER)]
PlanId = Annotated[str, *named(MARKETPLACE_PLAN)]


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
            check_id(identity_id, USER_ASSIGNED_IDENTITY)
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

    name: PlanId = Field(description="The plan id (often the image's sku)")
    publisher: PublisherId = Field(description="The publisher id")
    product: OfferId = Field(description="The offer id")


ImageId = Annotated[str, *arm_id(*IMAGE_IDS)]
SharedGalleryImageId = Annotated[str, *arm_id(*SHARED_GALLERY_IDS)]
CommunityGalleryImageId = Annotated[str, *arm_id(*COMMUNITY_GALLERY_IDS)]
