"""Building ARM resource ids with Azure's canonical casing."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Scope:
    """Subscription + resource group a request addresses."""

    subscription: str
    resource_group: str

    def group_id(self) -> str:
        return f"/subscriptions/{self.subscription}/resourceGroups/{self.resource_group}"

    def resource_id(self, provider_type: str, name: str) -> str:
        return f"{self.group_id()}/providers/{provider_type}/{name}"


def key(resource_id: str) -> str:
    """ARM ids compare case-insensitively."""
    return resource_id.lower().rstrip("/")


def last_segment(resource_id: str) -> str:
    return resource_id.rstrip("/").rsplit("/", 1)[-1]


def parse(resource_id: str) -> dict[str, str]:
    """`/subscriptions/s/resourceGroups/g/providers/Ns/type/name[/child/name]` -> parts (lower keys)."""
    parts = resource_id.strip("/").split("/")
    out: dict[str, str] = {}
    for i in range(0, len(parts) - 1, 2):
        out[parts[i].lower()] = parts[i + 1]
    return out
