"""Who owns an Azure resource: the ONE rule every activity that writes, deletes or adopts follows.

Every resource azmc creates carries (models.naming):
  azmc-machine = <machine name>    (Resource Graph queries and listings find a machine's resources by it)
  azmc-pool    = <pool>            (when the spec has one)
  azmc-owner   = <installation id>/<workflow id>, e.g. `7f3c...e1/machine/azmc-demo/vm1`
The installation id names one azmc installation (AZMC_INSTALLATION_ID, else its Temporal namespace's
id), the workflow id the one workflow that manages the machine. A resource is:
  OURS      its owner tag is this installation's workflow for the machine: use, change, delete it;
  LEGACY    no owner tag, azmc-machine = the machine: made by azmc before owner tags; adopt it (tag it)
            the first time it is used, so upgrading leaks nothing;
  UNTAGGED  no azmc tag at all: a disk that a VM PUT made (Azure does not tag those) is adopted when
            our VM names it; anything else is not ours;
  FOREIGN   anything else (another installation, another workflow, another machine): never adopted,
            changed or deleted; the activity fails with NotOwned, naming both owners.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.clients import AzureClients
from activities.errors import error
from models.errors import ErrorType
from models.naming import MACHINE_TAG, OWNER_TAG, owner_value, workflow_id
from models.spec import MachineSpec

Tags = Mapping[str, str] | None


class Ownership(StrEnum):
    OURS = "ours"
    LEGACY = "legacy"
    UNTAGGED = "untagged"
    FOREIGN = "foreign"


def tag_value(tags: Tags, key: str) -> str | None:
    """A tag's value; Azure treats tag names case-insensitively, so we do too."""
    for name, value in (tags or {}).items():
        if name.lower() == key:
            return value
    return None


@dataclass(frozen=True)
class Owner:
    """One machine's owner as this installation sees it: whose resources it may touch, how it tags them."""

    installation_id: str
    workflow_id: str
    machine: str

    @property
    def value(self) -> str:
        return owner_value(self.installation_id, self.workflow_id)

    def classify(self, tags: Tags) -> Ownership:
        owner = tag_value(tags, OWNER_TAG)
        if owner is not None:
            return Ownership.OURS if owner == self.value else Ownership.FOREIGN
        machine = tag_value(tags, MACHINE_TAG)
        if machine is None:
            return Ownership.UNTAGGED
        return Ownership.LEGACY if machine == self.machine else Ownership.FOREIGN

    def may_use(self, tags: Tags, *, untagged: bool = False) -> bool:
        """OURS or LEGACY (LEGACY is ours by the rule azmc followed before owner tags); UNTAGGED if allowed."""
        kind = self.classify(tags)
        return kind in (Ownership.OURS, Ownership.LEGACY) or (untagged and kind == Ownership.UNTAGGED)

    def require(self, kind: str, name: str, tags: Tags) -> Ownership:
        """The resource's ownership when we may use it; NotOwned otherwise."""
        if not self.may_use(tags):
            raise self.not_owned(kind, name, tags)
        return self.classify(tags)

    def tags(self, spec: MachineSpec) -> dict[str, str]:
        """Every tag a resource of this machine gets when azmc creates or updates it."""
        return {**spec.machine_tags(), OWNER_TAG: self.value}

    def claimed(self, tags: Tags) -> dict[str, str]:
        """A LEGACY or UNTAGGED resource's tags once adopted: all it had, plus our machine and owner tags."""
        kept = {k: v for k, v in (tags or {}).items() if k.lower() not in (MACHINE_TAG, OWNER_TAG)}
        return {**kept, MACHINE_TAG: self.machine, OWNER_TAG: self.value}

    def not_owned(self, kind: str, name: str, tags: Tags) -> ApplicationError:
        owner, machine = tag_value(tags, OWNER_TAG), tag_value(tags, MACHINE_TAG)
        if owner is not None:
            whose = f"belongs to {OWNER_TAG}={owner}"
        elif machine is not None:
            whose = f"belongs to machine {machine} ({MACHINE_TAG}={machine})"
        else:
            whose = "has no azmc tags (azmc did not create it)"
        return error(
            ErrorType.NOT_OWNED,
            f"{kind} {name} {whose}, not to this machine ({OWNER_TAG}={self.value}): azmc never adopts, "
            "changes or deletes another owner's resource; delete it where it is managed, or rename the machine",
        )


def made_by_installation(tags: Tags, installation_id: str) -> bool:
    """Made by azmc for this installation (its owner tag names it), or LEGACY (azmc-machine only, made
    before owner tags): what an installation may list as its own, e.g. abandoned machines."""
    owner = tag_value(tags, OWNER_TAG)
    if owner is not None:
        return owner.split("/", 1)[0] == installation_id
    return bool(tag_value(tags, MACHINE_TAG))


def owner_of(clients: AzureClients, resource_group: str, machine: str, on_behalf_of: str = "") -> Owner:
    """The owner an activity acts for: this installation and the workflow that called it.

    Outside an activity (tests, tools) that is the machine's own workflow id. `on_behalf_of`: a closed
    machine workflow whose orphans the fleet sweep collects (only that workflow's own resources go).
    """
    if not clients.installation_id:
        raise ValueError("ownership needs the installation id (AzureConfig.installation_id)")
    wf_id = on_behalf_of or (activity.info().workflow_id if activity.in_activity() else None)
    return Owner(clients.installation_id, wf_id or workflow_id(resource_group, machine), machine)
