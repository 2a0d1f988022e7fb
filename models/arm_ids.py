"""The ARM resource ids a spec refers to, each read segment by segment and every name checked by its rule in
models/arm_names.py: a typo, a second path or a name Azure would never accept is refused before anything is made.

An id is `/subscriptions/<GUID>/resourceGroups/<group>/providers/<Namespace>/<type>/<name>[/<type>/<name>]`
(ARM compares ids case-insensitively: the literal segments may be written in any case). Gallery images shared
directly or with the community have ids of their own (`/SharedGalleries/...`, `/CommunityGalleries/...`).
"""

import re
from dataclasses import dataclass
from typing import Any

from pydantic import AfterValidator, Field

from models.arm_names import (
    ASG_NAME,
    AVAILABILITY_SET_NAME,
    BACKEND_POOL_NAME,
    CAPACITY_RESERVATION_GROUP_NAME,
    COMMUNITY_GALLERY_NAME,
    DISK_ENCRYPTION_SET_NAME,
    GALLERY_IMAGE_NAME,
    GALLERY_IMAGE_VERSION,
    GALLERY_NAME,
    IMAGE_NAME,
    LOAD_BALANCER_NAME,
    NSG_NAME,
    PROXIMITY_PLACEMENT_GROUP_NAME,
    RESOURCE_GROUP_NAME,
    SHARED_GALLERY_NAME,
    SUBNET_NAME,
    SUBSCRIPTION_ID,
    USER_ASSIGNED_IDENTITY_NAME,
    VNET_NAME,
    NameRule,
)

# (literal segment, rule of the name after it), in the order of the id.
Segments = tuple[tuple[str, NameRule], ...]
_IN_A_GROUP: Segments = (("subscriptions", SUBSCRIPTION_ID), ("resourceGroups", RESOURCE_GROUP_NAME))


@dataclass(frozen=True)
class IdShape:
    """One form of id: the segments before the provider's types (a subscription and group, or none), the
    provider namespace (or none), then each type and the rule of its name."""

    what: str  # "a subnet", for errors
    types: Segments
    namespace: str = ""
    scope: Segments = _IN_A_GROUP

    @property
    def example(self) -> str:
        scope = "".join(f"/{literal}/<{rule.kind}>" for literal, rule in self.scope)
        provider = f"/providers/{self.namespace}" if self.namespace else ""
        return scope + provider + "".join(f"/{literal}/<{rule.kind}>" for literal, rule in self.types)

    def names(self, value: str) -> list[tuple[NameRule, str]] | None:
        """Each name in `value` with its rule, or None when `value` is not of this shape."""
        parts = value.split("/")
        expected: list[tuple[str, NameRule | None]] = [*self.scope]
        if self.namespace:
            expected += [("providers", None)]
        expected += [*self.types]
        if parts[0] != "" or len(parts) != 1 + 2 * len(expected):
            return None
        found: list[tuple[NameRule, str]] = []
        for index, (segment, rule) in enumerate(expected):
            key, name = parts[1 + 2 * index], parts[2 + 2 * index]
            if key.lower() != segment.lower():
                return None
            if rule is None:  # the namespace
                if name.lower() != self.namespace.lower():
                    return None
            else:
                found.append((rule, name))
        return found

    def problem(self, value: str) -> str | None:
        """None for an id of this shape whose every name is valid; what is wrong otherwise (no shape: None too,
        the caller decides; see `check_id`)."""
        for rule, name in self.names(value) or []:
            problem = rule.problem(name)
            if problem:
                return f"{rule.kind} {name!r}: {problem}"
        return None

    @property
    def json_pattern(self) -> str:
        """The shape as a JSON Schema pattern (a resource group's Unicode letters: any character but '/')."""
        def named(rule: NameRule) -> str:
            return f"(?:{rule.pattern.pattern})" if rule.json_pattern else "[^/]+"
        scope = "".join(f"/{_any_case(literal)}/{named(rule)}" for literal, rule in self.scope)
        provider = f"/{_any_case('providers')}/{_any_case(self.namespace)}" if self.namespace else ""
        types = "".join(f"/{_any_case(literal)}/{named(rule)}" for literal, rule in self.types)
        return scope + provider + types


def _any_case(literal: str) -> str:
    """`providers` -> `[Pp][Rr]...`: JSON Schema's regexes have no case-insensitive flag."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in literal)


def check_id(value: str, *shapes: IdShape) -> str:
    """`value` when it is an id of one of `shapes` with every name valid; ValueError saying what is wrong, and
    the value escaped, otherwise. "" passes: the field is not set."""
    if not value:
        return value
    for shape in shapes:
        if shape.names(value) is not None:
            problem = shape.problem(value)
            if problem:
                raise ValueError(f"{problem} (in the id of {shape.what})")
            return value
    forms = " or ".join(shape.example for shape in shapes)
    raise ValueError(f"{value!r} is not the id of {' or '.join(s.what for s in shapes)}: {forms}")


def arm_id(*shapes: IdShape, optional: bool = True) -> tuple[Any, ...]:
    """What makes `Annotated[str, *arm_id(shape)]` a field type holding an id of one of `shapes` ("" too, for none,
    when `optional`), checked by `check_id`, with its JSON Schema pattern (`azmc schema`)."""
    alternatives = "|".join(shape.json_pattern for shape in shapes)

    def check(value: str) -> str:
        if not value and not optional:
            raise ValueError(f"the id of {' or '.join(s.what for s in shapes)}: {shapes[0].example}")
        return check_id(value, *shapes)

    pattern = f"^(?:{alternatives}){'?' if optional else ''}$"
    return Field(json_schema_extra={"pattern": pattern}), AfterValidator(check)


_NETWORK = "Microsoft.Network"
_COMPUTE = "Microsoft.Compute"
SUBNET = IdShape("a subnet", (("virtualNetworks", VNET_NAME), ("subnets", SUBNET_NAME)), _NETWORK)
NSG = IdShape("a network security group", (("networkSecurityGroups", NSG_NAME),), _NETWORK)
ASG = IdShape("an application security group", (("applicationSecurityGroups", ASG_NAME),), _NETWORK)
BACKEND_POOL = IdShape("a load balancer backend pool", (("loadBalancers", LOAD_BALANCER_NAME),
                                                        ("backendAddressPools", BACKEND_POOL_NAME)), _NETWORK)
DISK_ENCRYPTION_SET = IdShape("a disk encryption set", (("diskEncryptionSets", DISK_ENCRYPTION_SET_NAME),), _COMPUTE)
CAPACITY_RESERVATION_GROUP = IdShape("a capacity reservation group",
                                     (("capacityReservationGroups", CAPACITY_RESERVATION_GROUP_NAME),), _COMPUTE)
PROXIMITY_PLACEMENT_GROUP = IdShape("a proximity placement group",
                                    (("proximityPlacementGroups", PROXIMITY_PLACEMENT_GROUP_NAME),), _COMPUTE)
AVAILABILITY_SET = IdShape("an availability set", (("availabilitySets", AVAILABILITY_SET_NAME),), _COMPUTE)
USER_ASSIGNED_IDENTITY = IdShape("a user-assigned identity", (("userAssignedIdentities", USER_ASSIGNED_IDENTITY_NAME),),
                                 "Microsoft.ManagedIdentity")
MANAGED_IMAGE = IdShape("a managed image", (("images", IMAGE_NAME),), _COMPUTE)
_GALLERY_IMAGE = (("galleries", GALLERY_NAME), ("images", GALLERY_IMAGE_NAME))
GALLERY_IMAGE = IdShape("a gallery image", _GALLERY_IMAGE, _COMPUTE)
GALLERY_IMAGE_VERSION_ID = IdShape("a gallery image version", (*_GALLERY_IMAGE, ("versions", GALLERY_IMAGE_VERSION)),
                                   _COMPUTE)
IMAGE_IDS = (MANAGED_IMAGE, GALLERY_IMAGE, GALLERY_IMAGE_VERSION_ID)
_SHARED = (("SharedGalleries", SHARED_GALLERY_NAME), ("Images", GALLERY_IMAGE_NAME))
SHARED_GALLERY_IDS = (IdShape("a shared gallery image", _SHARED, scope=()),
                      IdShape("a shared gallery image version", (*_SHARED, ("Versions", GALLERY_IMAGE_VERSION)),
                              scope=()))
_COMMUNITY = (("CommunityGalleries", COMMUNITY_GALLERY_NAME), ("Images", GALLERY_IMAGE_NAME))
COMMUNITY_GALLERY_IDS = (IdShape("a community gallery image", _COMMUNITY, scope=()),
                         IdShape("a community gallery image version",
                                 (*_COMMUNITY, ("Versions", GALLERY_IMAGE_VERSION)), scope=()))


def subscription_of(value: str) -> str:
    """The subscription an id names (its second segment), "" for none."""
    parts = value.split("/")
    return parts[2] if len(parts) > 2 and parts[1].lower() == "subscriptions" else ""
