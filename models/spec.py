"""MachineSpec: what an operator asks for. Validation errors name the field (pydantic's `loc`)."""

from datetime import timedelta
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationInfo, field_validator, model_validator

from models.arm_ids import SUBNET, arm_id, subscription_of
from models.arm_names import (
    DISK_NAME,
    IMAGE_VERSION,
    LOCATION,
    MACHINE_NAME,
    MARKETPLACE_OFFER,
    MARKETPLACE_PLAN,
    MARKETPLACE_PUBLISHER,
    NIC_NAME,
    POOL_NAME,
    PUBLIC_IP_NAME,
    RESOURCE_GROUP_NAME,
    VM_SIZE,
    check_user_tags,
    named,
)
from models.bootstrap import check_bootstrap_size
from models.durations import Bounded
from models.health import HealthSpec
from models.naming import MACHINE_TAG, POOL_TAG, data_disk_name, nic_name, os_disk_name, public_ip_name
from models.spec_disks import EphemeralOsDisk, check_ephemeral_spot
from models.spec_network import (
    ACCELERATED_DESCRIPTION,
    ASG_DESCRIPTION,
    NSG_DESCRIPTION,
    POOL_DESCRIPTION,
    PUBLIC_IP_DESCRIPTION,
    AsgIds,
    BackendPoolIds,
    NsgId,
    PublicIp,
)
from models.spec_placement import (
    AvailabilitySetId,
    CapacityReservationGroupId,
    DiskEncryptionSetId,
    ProximityPlacementGroupId,
    check_placement,
)
from models.spec_vm_features import CommunityGalleryImageId, Identity, ImageId, PurchasePlan, SharedGalleryImageId

DISK_SKUS = ("Standard_LRS", "StandardSSD_LRS", "Premium_LRS", "PremiumV2_LRS", "UltraSSD_LRS",
             "StandardSSD_ZRS", "Premium_ZRS")


ResourceGroup = Annotated[str, *named(RESOURCE_GROUP_NAME)]
Location = Annotated[str, *named(LOCATION)]
SubnetId = Annotated[str, *arm_id(SUBNET, optional=False)]
PoolName = Annotated[str, *named(POOL_NAME, optional=True)]
ZONE_PATTERN = r"^([1-3])?$"  # "" = regional: Azure picks the zone (or the region has none)
VmSize = Annotated[str, *named(VM_SIZE)]
# A marketplace image: its publisher, offer and sku are the marketplace's ids (the sku is a plan id).
ImagePublisher = Annotated[str, *named(MARKETPLACE_PUBLISHER, optional=True)]
ImageOffer = Annotated[str, *named(MARKETPLACE_OFFER, optional=True)]
ImageSku = Annotated[str, *named(MARKETPLACE_PLAN, optional=True)]
ImageVersion = Annotated[str, *named(IMAGE_VERSION)]
Zone = Annotated[str, StringConstraints(strip_whitespace=True, pattern=ZONE_PATTERN)]
# The single-value fields of older specs, histories and carried states: read as a list of one.
_SINGLE_TO_LIST = (("vm_size", "vm_sizes"), ("zone", "zones"))


# Bootstrap data is passed byte for byte: a script's trailing newline matters.
_Verbatim = Annotated[str, StringConstraints(strip_whitespace=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class ImageReference(_Strict):
    """A marketplace image (publisher/offer/sku/version), a managed or gallery image id, a shared gallery image id
    or a community gallery image id: exactly one kind."""

    publisher: ImagePublisher = ""
    offer: ImageOffer = ""
    sku: ImageSku = ""
    version: ImageVersion = "latest"
    id: ImageId = Field(
        "", description="A managed image or Azure Compute Gallery image (version) id")
    shared_gallery_image_id: SharedGalleryImageId = Field(
        "", description="A gallery image (version) shared directly with the subscription: /SharedGalleries/...")
    community_gallery_image_id: CommunityGalleryImageId = Field(
        "", description="A community gallery image (version): /CommunityGalleries/...")

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        marketplace = [self.publisher, self.offer, self.sku]
        ids = [self.id, self.shared_gallery_image_id, self.community_gallery_image_id]
        kinds = sum(1 for given in ids if given) + (1 if any(marketplace) else 0)
        if kinds > 1:
            raise ValueError("give one kind of image: publisher/offer/sku, id, shared_gallery_image_id or "
                             "community_gallery_image_id, not several")
        if not any(ids) and not all(marketplace):
            raise ValueError("give an image id, or all of publisher, offer and sku")
        return self


class _ManagedDisk(_Strict):
    size_gb: int = Field(30, ge=1, le=4095)
    sku: str = "StandardSSD_LRS"

    @field_validator("sku")
    @classmethod
    def _known_sku(cls, value: str) -> str:
        if value not in DISK_SKUS:
            raise ValueError(f"unknown disk sku {value!r}; one of {', '.join(DISK_SKUS)}")
        return value


class OsDisk(_ManagedDisk):
    ephemeral: EphemeralOsDisk | None = Field(None, description="an ephemeral OS disk on the host's local storage "
                                              "(models/spec_disks.py): none by default")


class DataDisk(_ManagedDisk):
    name: str = Field("", pattern=r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$|^$", max_length=30)
    lun: int = Field(ge=0, le=63)
    size_gb: int = Field(ge=1, le=32767)


class Priority(StrEnum):
    REGULAR = "Regular"
    SPOT = "Spot"


class CapacityOrder(StrEnum):
    """The order offerings are tried in (models/prices.py)."""

    LISTED = "listed"  # the spec's order: size, then zone
    PRICE = "price"  # the cheapest size first (the same price in every zone: zones keep their order)
    PRICE_AND_EVICTION = "price_and_eviction"  # Spot: price weighed by the eviction-rate bucket


class SpotSettings(_Strict):
    eviction_policy: str = Field("Delete", pattern="^(Delete|Deallocate)$")
    # -1: pay up to the on-demand price, never evicted for price.
    max_price: float = -1
    # No Spot capacity (or an eviction): may the machine become a regular, more expensive VM? Never by default.
    fallback_to_regular: bool = False

    @field_validator("max_price")
    @classmethod
    def _price(cls, value: float) -> float:
        if value != -1 and value <= 0:
            raise ValueError("max_price is -1 (on-demand cap) or a positive price")
        return value


HEALTH_CHECK_INTERVAL = timedelta(hours=6)


class Timeouts(_Strict):
    """MCM's defaults. Each accepts "20m", "2h", seconds or ISO 8601."""

    creation: Annotated[timedelta, Bounded("timeouts.creation")] = timedelta(minutes=20)
    health: Annotated[timedelta, Bounded("timeouts.health")] = timedelta(minutes=10)
    drain: Annotated[timedelta, Bounded("timeouts.drain")] = timedelta(hours=2)
    # How long a new VM's guest may take to become healthy (health signals), counted in `creation` too.
    startup: Annotated[timedelta, Bounded("timeouts.startup")] = timedelta(minutes=10)
    # How often a Running machine re-reads its VM on its own. Sparse on purpose: ARM allows ~25 reads/s a
    # subscription, and the fleet sweep (every minute) watches every machine and sends `reconcile` on drift.
    # Without the sweep's schedule, set 10m (the default before the sweep).
    health_check_interval: Annotated[timedelta, Bounded("timeouts.health_check_interval")] = HEALTH_CHECK_INTERVAL

    # The rule before models/durations.py's bounds, for values stored then (the bounds imply it).
    @model_validator(mode="after")
    def _positive(self) -> Self:
        for field in ("creation", "health", "drain", "startup", "health_check_interval"):
            if getattr(self, field) <= timedelta(0):
                raise ValueError(f"{field} must be positive")
        return self


class MachineSpec(_Strict):
    name: str = Field(json_schema_extra=MACHINE_NAME.json_schema())  # checked with the names derived from it
    resource_group: ResourceGroup
    location: Location
    # Acceptable sizes and zones, in the order they are tried (models/offerings.py: offerings_of).
    vm_sizes: list[VmSize] = Field(min_length=1)
    image: ImageReference
    subnet_id: SubnetId
    admin_username: str = Field("azureuser", pattern=r"^[a-z_][a-z0-9_-]{0,31}$")
    ssh_public_key: str = Field(min_length=1)
    os_disk: OsDisk = OsDisk()
    data_disks: list[DataDisk] = []
    zones: list[Zone] = Field([""], min_length=1)
    tags: dict[str, str] = {}
    pool: PoolName = ""
    priority: Priority = Priority.REGULAR
    spot: SpotSettings | None = None
    accelerated_networking: bool | None = Field(None, description=ACCELERATED_DESCRIPTION)
    network_security_group_id: NsgId = Field("", description=NSG_DESCRIPTION)
    application_security_group_ids: AsgIds = Field([], description=ASG_DESCRIPTION)
    load_balancer_backend_address_pool_ids: BackendPoolIds = Field([], description=POOL_DESCRIPTION)
    public_ip: PublicIp | None = Field(None, description=PUBLIC_IP_DESCRIPTION)
    identity: Identity | None = Field(None, description="Managed identities of the VM (changes in place)")
    plan: PurchasePlan | None = Field(None, description="The marketplace image's purchase plan, sent with the VM")
    accept_terms: bool = Field(False, description="Accept the plan's marketplace terms before creating the VM")
    boot_diagnostics: bool = Field(False, description="Boot diagnostics with managed storage (changes in place)")
    capacity_order: CapacityOrder = Field(
        CapacityOrder.LISTED, description="listed (vm_sizes then zones, as written), price (cheapest first, Azure "
        "Retail Prices refreshed every 12h, else a shipped table) or price_and_eviction (Spot: weighed by the "
        "eviction-rate bucket of Resource Graph's SpotResources); docs/capacity.md")
    foresight: bool = Field(False, description="Act before Azure does (docs/foresight.md): the VM publishes its "
                            "scheduled events to Resource Graph (scheduledEventsPolicy, changes in place) and the "
                            "machine acts on them and on a degrading host ahead of their deadline")
    # Disks and placement (models/spec_placement.py, docs/vm-features.md): Compute resources azmc uses, never creates.
    encryption_at_host: bool = Field(False, description="securityProfile.encryptionAtHost: the host encrypts the "
                                     "VM's disks, caches and temporary disk (the subscription feature must be on)")
    disk_encryption_set_id: DiskEncryptionSetId = Field("", description="id of a disk encryption set: the OS disk "
                                                        "and every data disk azmc creates are encrypted with its key")
    capacity_reservation_group_id: CapacityReservationGroupId = Field(
        "", description="id of a capacity reservation group the VM is allocated from (every size and zone tried)")
    proximity_placement_group_id: ProximityPlacementGroupId = Field(
        "", description="id of a proximity placement group the VM is placed in")
    availability_set_id: AvailabilitySetId = Field(
        "", description="id of an availability set the VM joins (regional, regular priority only)")
    timeouts: Timeouts = Timeouts()
    health: HealthSpec = HealthSpec()
    # Secrets (models/bootstrap.py): never in repr, logs or messages. Not stripped: they are the bytes the VM gets.
    custom_data: _Verbatim = Field("", repr=False, json_schema_extra={"writeOnly": True})
    user_data: _Verbatim = Field("", repr=False, json_schema_extra={"writeOnly": True})

    @model_validator(mode="before")
    @classmethod
    def _single_values_as_lists(cls, data: Any) -> Any:
        """`vm_size: X` / `zone: Z` (every spec before vm_sizes/zones) is `vm_sizes: [X]` / `zones: [Z]`."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for single, plural in _SINGLE_TO_LIST:
            if single in data:
                if plural in data:
                    raise ValueError(f"give {single} or {plural}, not both ({single} is {plural} with one entry)")
                data[plural] = [data.pop(single)]
        return data

    @field_validator("vm_sizes", "zones")
    @classmethod
    def _no_duplicates(cls, values: list[str], info: ValidationInfo) -> list[str]:
        seen: set[str] = set()
        for value in values:
            if value.lower() in seen:  # Azure's size names are case-insensitive
                raise ValueError(f"{value!r} is listed twice: every entry of {info.field_name} must differ")
            seen.add(value.lower())
        return values

    @property
    def vm_size(self) -> str:
        """The first (preferred) size; the one in use when the spec was narrowed to an offering."""
        return self.vm_sizes[0]

    @property
    def zone(self) -> str:
        """The first (preferred) zone, "" for regional; the one in use when narrowed to an offering."""
        return self.zones[0]

    @property
    def subscription(self) -> str:
        """The subscription of the subnet, which is the VM's: Azure puts a NIC only in its VNet's subscription."""
        return subscription_of(self.subnet_id)

    @field_validator("name")
    @classmethod
    def _vm_name(cls, value: str) -> str:
        MACHINE_NAME.check(value)
        NIC_NAME.check_derived(nic_name(value))
        PUBLIC_IP_NAME.check_derived(public_ip_name(value))
        DISK_NAME.check_derived(os_disk_name(value))
        return value

    @field_validator("ssh_public_key")
    @classmethod
    def _ssh_key(cls, value: str) -> str:
        if not value.startswith(("ssh-", "ecdsa-", "sk-")):
            raise ValueError("an OpenSSH public key (ssh-rsa ..., ssh-ed25519 ...)")
        return value

    @field_validator("custom_data", "user_data", mode="before")
    @classmethod
    def _bootstrap(cls, value: object, info: ValidationInfo) -> object:
        return check_bootstrap_size(info.field_name or "bootstrap data", value) if isinstance(value, str) else value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: dict[str, str]) -> dict[str, str]:
        check_user_tags(value)
        return value

    @field_validator("data_disks")
    @classmethod
    def _data_disks(cls, disks: list[DataDisk], info: ValidationInfo) -> list[DataDisk]:
        luns = [d.lun for d in disks]
        duplicates = sorted({lun for lun in luns if luns.count(lun) > 1})
        if duplicates:
            raise ValueError(f"duplicate lun {duplicates[0]}: every data disk needs its own lun")
        if "name" in info.data:  # absent when the name itself was refused
            for disk in disks:
                DISK_NAME.check_derived(data_disk_name(info.data["name"], disk.lun, disk.name))
        return disks

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.spot is not None and self.priority != Priority.SPOT:
            raise ValueError("spot settings given but priority is not Spot")
        if self.accept_terms and self.plan is None:
            raise ValueError("accept_terms: there is no plan whose terms to accept")
        check_placement(self.availability_set_id, self.zones, self.priority)
        check_ephemeral_spot(self.os_disk.ephemeral, self.priority,
                             self.spot.eviction_policy if self.spot else "Delete")
        return self

    def all_disk_names(self) -> list[str]:
        """OS disk first, then data disks by lun."""
        data = sorted(self.data_disks, key=lambda d: d.lun)
        return [os_disk_name(self.name)] + [data_disk_name(self.name, d.lun, d.name) for d in data]

    def machine_tags(self) -> dict[str, str]:
        """The user's tags plus azmc-machine and azmc-pool: every tag but the owner tag, which only the
        driver knows (activities.ownership.Owner.tags adds it; resources are tagged only through it)."""
        tags = dict(self.tags)
        tags[MACHINE_TAG] = self.name
        if self.pool:
            tags[POOL_TAG] = self.pool
        return tags
