"""Azure's rules for every name azmc sends or refers to, in one table (`RULES`), so a spec Azure would refuse is
refused first, naming the field, the rule and the value (escaped: `repr`).

Sources: Microsoft's "Naming rules and restrictions for Azure resources" (resource-name-rules, 2025:
Microsoft.Resources, Microsoft.Compute, Microsoft.Network, Microsoft.ManagedIdentity), "Use tags to organize your
Azure resources" (tag limits) and Partner Center's offer and plan setup pages (marketplace ids: "lowercase
letters and numbers, dashes, or underscores, and a maximum of 50 characters"; older publishers, offers and skus
use capitals and periods, `Canonical:UbuntuServer:18.04-LTS`, and ARM compares them case-insensitively).
Where Azure names no rule (proximity placement and capacity reservation groups, load balancer backend pools,
gallery public names, regions) the rule of the nearest sibling stands, and its comment says so. No rule takes
'/', '%', '#', '?', a space, a control character, '.' or '..': a name is always one segment of a path.

The CLI checks the names it puts into Temporal visibility queries with the same rules; the emulator has its own
copy on purpose (`emulator/arm/rules/`).
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import AfterValidator, Field

MAX_TAGS = 50  # per resource
# azmc's own tags on every resource: azmc-machine, azmc-pool and azmc-owner (installation ownership).
AZMC_RESERVED_TAGS = 3
MAX_USER_TAGS = MAX_TAGS - AZMC_RESERVED_TAGS
MAX_TAG_KEY = 512
MAX_TAG_VALUE = 256
TAG_KEY_FORBIDDEN = "<>%&\\?/"
AZMC_TAG_PREFIX = "azmc-"


@dataclass(frozen=True)
class NameRule:
    """One kind of name: its length range and characters, and how to say so in an error."""

    kind: str
    min_length: int
    max_length: int
    pattern: re.Pattern[str]
    characters: str
    # `\w` in the pattern means Azure's Unicode letters and digits (resource groups), checked per character.
    unicode_letters: bool = False

    def problem(self, value: str) -> str | None:
        """None when `value` is a valid name of this kind, else what is wrong (a clause without the value)."""
        if not self.min_length <= len(value) <= self.max_length:
            if self.min_length == self.max_length:  # a fixed form (a GUID): say the form
                return f"must be {self.characters}"
            return f"must be {self.min_length}-{self.max_length} characters long"
        if not self.pattern.fullmatch(value):  # fullmatch: `$` would accept a trailing newline
            return self.characters
        # Azure's letters and digits are .NET's Char.IsLetterOrDigit: Unicode letters (isalpha) and decimal digits;
        # Python's \w also takes other numbers ('²', 'Ⅻ').
        if self.unicode_letters and any(c.isalnum() and not (c.isalpha() or c.isdecimal()) for c in value):
            return self.characters
        return None

    def check(self, value: str) -> str:
        """`value` unchanged, or ValueError saying what, which rule and the value escaped (for a field validator:
        pydantic names the field)."""
        problem = self.problem(value)
        if problem:
            raise ValueError(f"{self.kind} {value!r}: {problem}")
        return value

    def check_derived(self, value: str) -> str:
        """Like check, for a name azmc derives from the spec's (no field holds it as written)."""
        problem = self.problem(value)
        if problem:
            raise ValueError(f"derived {self.kind} {value!r}: {problem}")
        return value

    @property
    def json_pattern(self) -> str | None:
        """The rule as a JSON Schema pattern; None when JSON Schema's regexes cannot say it (Unicode letters)."""
        return None if self.unicode_letters else f"^(?:{self.pattern.pattern})$"

    def json_schema(self) -> dict[str, Any]:
        """minLength, maxLength and pattern, for `azmc schema`."""
        schema: dict[str, Any] = {"minLength": self.min_length, "maxLength": self.max_length}
        if self.json_pattern:
            schema["pattern"] = self.json_pattern
        return schema


def named(rule: NameRule, *, optional: bool = False) -> tuple[Any, ...]:
    """What makes `Annotated[str, *named(rule)]` a field type holding a name of `rule` ("" too, for none, when
    `optional`): checked by the rule (the error names the field, the rule and the value) and described by it in the
    JSON Schema (`azmc schema`). Written out as `Annotated[str, ...]`, so a type checker reads the field as a str."""
    schema = rule.json_schema()
    if optional:
        schema["minLength"] = 0
        if "pattern" in schema:
            schema["pattern"] = f"^(?:{rule.pattern.pattern})?$"

    def check(value: str) -> str:
        return value if optional and not value else rule.check(value)

    return Field(json_schema_extra=schema), AfterValidator(check)


def _rule(kind: str, lengths: tuple[int, int], pattern: str, characters: str,
          unicode_letters: bool = False) -> NameRule:
    return NameRule(kind, lengths[0], lengths[1], re.compile(pattern), characters, unicode_letters)


# Alphanumerics, underscores, periods and hyphens; start with alphanumeric, end with alphanumeric or underscore:
# Microsoft.Compute's availability sets and images.
_COMPUTE_STYLE = r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9_])?"
_COMPUTE_WORDS = ("letters, digits, '_', '.' and '-', starting with a letter or digit, ending with a letter, digit "
                  "or '_'")
# Microsoft.Network's, as its own error says: "It must begin with a word character, and it must end with a word
# character or with '_'. The name may contain word characters or '.', '-', '_'." (its word characters: ASCII).
_NETWORK_STYLE = r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?"
_NETWORK_WORDS = "letters, digits, '_', '.' and '-', starting and ending with a letter, digit or '_'"
_ALNUM_UNDERSCORE_HYPHEN = r"[A-Za-z0-9_-]+"
# Marketplace publishers, offers and plans (skus).
_MARKETPLACE, _MARKETPLACE_WORDS = _COMPUTE_STYLE, _COMPUTE_WORDS

# azmc's VM names are stricter than Azure's Linux VM names (1-64): also valid Kubernetes node names and host
# names (the VM name is the computer name).
MACHINE_NAME = _rule("machine name", (1, 64), r"[a-z0-9]([a-z0-9-]*[a-z0-9])?",
                     "lower-case letters, digits and '-', starting and ending with a letter or digit")
RESOURCE_GROUP_NAME = _rule("resource group", (1, 90), r"[-\w.()]*[-\w()]",
                            "letters, digits, '-', '_', '.', '(' and ')', not ending in '.'", unicode_letters=True)
# A pool is a tag value and a search attribute; Kubernetes label-value rules keep it readable everywhere.
# The one rule of a pool's name wherever azmc is given one: a machine's `pool`, `azmc get --pool` and `azmc pool`
# (a MachinePool's own name, models/pool.py POOL_SPEC_NAME, is stricter: it prefixes its machines' names).
POOL_NAME = _rule("pool", (1, 63), r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?",
                  "letters, digits, '_', '.' and '-', starting and ending with a letter or digit")
SUBSCRIPTION_ID = _rule("subscription id", (36, 36), r"[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}",
                        "a GUID (00000000-0000-0000-0000-000000000000)")
# ARM's region names (westeurope, eastus2): lower-case letters and digits; 50 is azmc's bound, far above any.
LOCATION = _rule("location", (1, 50), r"[a-z0-9]+", "lower-case letters and digits (westeurope, eastus2)")
# Standard_D2s_v5, and constrained-vCPU sizes Standard_E4-2s_v5; 64 is azmc's bound.
VM_SIZE = _rule("VM size", (1, 64), r"[A-Za-z][A-Za-z0-9_-]*",
                "letters, digits, '_' and '-', starting with a letter (Standard_D2s_v5)")

# Microsoft.Network
VNET_NAME = _rule("virtual network name", (2, 64), _NETWORK_STYLE, _NETWORK_WORDS)
SUBNET_NAME = _rule("subnet name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)
NIC_NAME = _rule("NIC name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)
PUBLIC_IP_NAME = _rule("public IP name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)
NSG_NAME = _rule("network security group name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)
ASG_NAME = _rule("application security group name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)
LOAD_BALANCER_NAME = _rule("load balancer name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)
# Not in Microsoft's table: the rule of a load balancer's other children (inboundNatRules).
BACKEND_POOL_NAME = _rule("backend address pool name", (1, 80), _NETWORK_STYLE, _NETWORK_WORDS)

# Microsoft.Compute
DISK_NAME = _rule("disk name", (1, 80), _ALNUM_UNDERSCORE_HYPHEN, "letters, digits, '_' and '-'")
DISK_ENCRYPTION_SET_NAME = _rule("disk encryption set name", (1, 80), _ALNUM_UNDERSCORE_HYPHEN,
                                 "letters, digits, '_' and '-'")
AVAILABILITY_SET_NAME = _rule("availability set name", (1, 80), _COMPUTE_STYLE, _COMPUTE_WORDS)
# Not in Microsoft's table: the rule of availability sets, their placement siblings.
PROXIMITY_PLACEMENT_GROUP_NAME = _rule("proximity placement group name", (1, 80), _COMPUTE_STYLE, _COMPUTE_WORDS)
CAPACITY_RESERVATION_GROUP_NAME = _rule("capacity reservation group name", (1, 80), _COMPUTE_STYLE, _COMPUTE_WORDS)
IMAGE_NAME = _rule("image name", (1, 80), _COMPUTE_STYLE, _COMPUTE_WORDS)
GALLERY_NAME = _rule("gallery name", (1, 80), r"[A-Za-z0-9]([A-Za-z0-9.]*[A-Za-z0-9])?",
                     "letters, digits and '.', starting and ending with a letter or digit")
GALLERY_IMAGE_NAME = _rule("gallery image name", (1, 80), r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?",
                           "letters, digits, '_', '-' and '.', starting and ending with a letter or digit")
# Major.Minor.Patch, each a 32-bit integer; `latest` where Azure resolves it.
GALLERY_IMAGE_VERSION = _rule("gallery image version", (1, 32), r"latest|[0-9]{1,10}\.[0-9]{1,10}\.[0-9]{1,10}",
                              "Major.Minor.Patch numbers (1.0.0) or latest")
# A gallery shared directly is `<subscription id>-<GALLERY NAME>` (a GUID, '-', a gallery name); a community
# gallery `<prefix>-<GUID>`, for which Microsoft names no rule: the same.
_SHARED_GALLERY = (r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?",
                   "letters, digits, '.' and '-', starting and ending with a letter or digit")
SHARED_GALLERY_NAME = _rule("shared gallery unique name", (1, 117), *_SHARED_GALLERY)
COMMUNITY_GALLERY_NAME = _rule("community gallery public name", (1, 117), *_SHARED_GALLERY)

# Microsoft.ManagedIdentity
USER_ASSIGNED_IDENTITY_NAME = _rule("user-assigned identity name", (3, 128), r"[A-Za-z0-9][A-Za-z0-9_-]*",
                                    "letters, digits, '_' and '-', starting with a letter or digit")

# The marketplace (an image's publisher/offer/sku/version, a plan's publisher/product/name).
MARKETPLACE_PUBLISHER = _rule("marketplace publisher id", (1, 50), _MARKETPLACE, _MARKETPLACE_WORDS)
MARKETPLACE_OFFER = _rule("marketplace offer id", (1, 50), _MARKETPLACE, _MARKETPLACE_WORDS)
MARKETPLACE_PLAN = _rule("marketplace plan (sku) id", (1, 50), _MARKETPLACE, _MARKETPLACE_WORDS)
IMAGE_VERSION = _rule("image version", (1, 43), r"latest|[0-9]{1,10}(\.[0-9]{1,10}){0,3}",
                      "latest, or numbers separated by '.' (22.04.202404230)")

RULES: tuple[NameRule, ...] = (
    MACHINE_NAME, RESOURCE_GROUP_NAME, POOL_NAME, SUBSCRIPTION_ID, LOCATION, VM_SIZE,
    VNET_NAME, SUBNET_NAME, NIC_NAME, PUBLIC_IP_NAME, NSG_NAME, ASG_NAME, LOAD_BALANCER_NAME, BACKEND_POOL_NAME,
    DISK_NAME, DISK_ENCRYPTION_SET_NAME, AVAILABILITY_SET_NAME, PROXIMITY_PLACEMENT_GROUP_NAME,
    CAPACITY_RESERVATION_GROUP_NAME, IMAGE_NAME, GALLERY_NAME, GALLERY_IMAGE_NAME, GALLERY_IMAGE_VERSION,
    SHARED_GALLERY_NAME, COMMUNITY_GALLERY_NAME, USER_ASSIGNED_IDENTITY_NAME,
    MARKETPLACE_PUBLISHER, MARKETPLACE_OFFER, MARKETPLACE_PLAN, IMAGE_VERSION,
)


def rules_table() -> str:
    """RULES as the Markdown table of docs/configuration.md."""
    def length(rule: NameRule) -> str:
        return str(rule.min_length) if rule.min_length == rule.max_length else f"{rule.min_length}-{rule.max_length}"
    rows = [f"| {rule.kind} | {length(rule)} | {rule.characters} |" for rule in RULES]
    return "\n".join(["| Name | Length | Characters |", "|---|---|---|", *rows])


def tag_problem(key: str, value: str) -> str | None:
    """What ARM would refuse in one tag (or azmc reserves), else None. Values may hold any character."""
    if not key or len(key) > MAX_TAG_KEY:
        return f"tag {key!r}: keys are 1-{MAX_TAG_KEY} characters"
    if len(value) > MAX_TAG_VALUE:
        return f"tag {key!r}: values are at most {MAX_TAG_VALUE} characters"
    forbidden = sorted({char for char in key if char in TAG_KEY_FORBIDDEN})
    if forbidden:
        return f"tag {key!r}: keys cannot contain {' '.join(forbidden)} (Azure refuses {' '.join(TAG_KEY_FORBIDDEN)})"
    if any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in key):  # Unicode's control characters (Cc)
        return f"tag {key!r}: keys cannot contain control characters"
    if key.lower().startswith(AZMC_TAG_PREFIX):
        return f"tag {key!r}: the {AZMC_TAG_PREFIX} prefix is reserved for azmc's ownership tags"
    return None


def check_user_tags(tags: Mapping[str, str]) -> None:
    """ValueError for the first tag Azure would refuse, counting the tags azmc adds itself."""
    if len(tags) > MAX_USER_TAGS:
        raise ValueError(f"at most {MAX_USER_TAGS} tags (Azure allows {MAX_TAGS}; azmc adds {AZMC_RESERVED_TAGS})")
    seen: dict[str, str] = {}
    for key, value in tags.items():
        problem = tag_problem(key, value)
        if problem:
            raise ValueError(problem)
        if key.lower() in seen:  # ARM's tag keys are case-insensitive
            raise ValueError(f"tags {seen[key.lower()]!r} and {key!r} are the same key to Azure (case-insensitive)")
        seen[key.lower()] = key
