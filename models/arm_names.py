"""ARM's rules for the names and tags azmc sends, in one place, so a spec Azure would refuse is refused first.

Sources: Azure's "Naming rules and restrictions for Azure resources" (Microsoft.Resources,
Microsoft.Compute, Microsoft.Network) and "Use tags to organize your Azure resources" (tag limits).
The CLI checks the names it puts into Temporal visibility queries with the same rules.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass

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

    def problem(self, value: str) -> str | None:
        """None when `value` is a valid name of this kind, else what is wrong (a clause without the value)."""
        if not self.min_length <= len(value) <= self.max_length:
            return f"must be {self.min_length}-{self.max_length} characters long"
        if not self.pattern.fullmatch(value):  # fullmatch: `$` would accept a trailing newline
            return self.characters
        return None

    def check(self, value: str) -> str:
        """`value` unchanged, or ValueError saying what is wrong (for a field validator: pydantic names the field)."""
        problem = self.problem(value)
        if problem:
            raise ValueError(problem)
        return value

    def check_derived(self, value: str) -> str:
        """Like check, for a name azmc derives: the error shows the name, since no field holds it."""
        problem = self.problem(value)
        if problem:
            raise ValueError(f"derived {self.kind} {value!r}: {problem}")
        return value


_ALNUM_EDGES = "letters, digits, '_', '.' and '-', starting with a letter or digit, ending with a letter, digit or '_'"
# NICs, managed disks, virtual networks and subnets share ARM's character rule.
_NETWORK_STYLE = re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9_])?")

# azmc's VM names are stricter than Azure's Linux VM names (1-64): also valid Kubernetes node names
# and host names (the VM name is the computer name).
MACHINE_NAME = NameRule("name", 1, 64, re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?"),
                        "lower-case letters, digits and '-', starting and ending with a letter or digit")  # fmt: skip
# ARM: 1-90, Unicode letters and digits, '_', '(', ')', '-', '.', not ending in '.'.
RESOURCE_GROUP_NAME = NameRule("resource group", 1, 90, re.compile(r"[-\w.()]*[-\w()]"),
                               "letters, digits, '-', '_', '.', '(' and ')', not ending in '.'")  # fmt: skip
# A pool is a tag value and a search attribute; Kubernetes label-value rules keep it readable everywhere.
# The one rule of a pool's name wherever azmc is given one: a machine's `pool`, `azmc get --pool` and `azmc pool`
# (a MachinePool's own name, models/pool.py POOL_SPEC_NAME, is stricter: it prefixes its machines' names).
POOL_NAME = NameRule("pool", 1, 63, re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?"),
                     "letters, digits, '_', '.' and '-', starting and ending with a letter or digit")  # fmt: skip
NIC_NAME = NameRule("NIC name", 1, 80, _NETWORK_STYLE, _ALNUM_EDGES)
PUBLIC_IP_NAME = NameRule("public IP name", 1, 80, _NETWORK_STYLE, _ALNUM_EDGES)
DISK_NAME = NameRule("disk name", 1, 80, _NETWORK_STYLE, _ALNUM_EDGES)
VNET_NAME = NameRule("virtual network name", 2, 64, _NETWORK_STYLE, _ALNUM_EDGES)
SUBNET_NAME = NameRule("subnet name", 1, 80, _NETWORK_STYLE, _ALNUM_EDGES)


def tag_problem(key: str, value: str) -> str | None:
    """What ARM would refuse in one tag (or azmc reserves), else None."""
    if not key or len(key) > MAX_TAG_KEY:
        return f"tag {key!r}: keys are 1-{MAX_TAG_KEY} characters"
    if len(value) > MAX_TAG_VALUE:
        return f"tag {key!r}: values are at most {MAX_TAG_VALUE} characters"
    forbidden = sorted({char for char in key if char in TAG_KEY_FORBIDDEN})
    if forbidden:
        return f"tag {key!r}: keys cannot contain {' '.join(forbidden)} (Azure refuses {' '.join(TAG_KEY_FORBIDDEN)})"
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
