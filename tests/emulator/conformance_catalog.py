"""Which of Microsoft's REST examples (tests/emulator/rest_examples, provenance in SOURCES.md) belong to which
Azure operation, how each is requested, and what the emulator does not model, with the reason.

An operation is named by Azure's operation id, the name the emulator's routes carry (`Route.azure`), so the
router says which operations are served and this catalog which examples prove each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SUB = "/subscriptions/{subscriptionId}"
RG = SUB + "/resourceGroups/{resourceGroupName}"
COMPUTE = RG + "/providers/Microsoft.Compute"
NETWORK = RG + "/providers/Microsoft.Network"
VM = COMPUTE + "/virtualMachines/{vmName}"
CRG = COMPUTE + "/capacityReservationGroups/{capacityReservationGroupName}"
MARKETPLACE = (SUB + "/providers/Microsoft.MarketplaceOrdering/offerTypes/{offerType}/publishers/{publisherId}/"
               "offers/{offerId}/plans/{planId}/agreements/current")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # Azure's path template, with the examples' parameter names
    examples: tuple[str, ...] = ()
    # How to meet the state the examples assume (conformance_setup.prepare): "references" (what a PUT body names),
    # "resource" (the example's own 200 body PUT first), "list" (each listed item PUT first), "minimal" (a resource
    # of the path's type), "graph" (VMs to query). Empty: by the method, see `before`.
    before: str = ""


def _files(prefix: str, *names: str) -> tuple[str, ...]:
    """Example files named `<prefix><name>.json`, as Microsoft names one operation's examples."""
    return tuple(f"{prefix}{name}.json" for name in names)


def _network(plural: str, param: str, prefix: str, *, parent: str = "", everywhere: bool = True,
             tags: bool = True, **examples: tuple[str, ...]) -> dict[str, Operation]:
    """The operations of a network resource type (`parent`: the path of the resource it is a child of); `examples`
    by operation (`Get=("Get",)`), each file named `network/<prefix><name>.json` as Microsoft names them
    (`NetworkSecurityGroupGet.json`)."""
    azure = plural[0].upper() + plural[1:]
    collection = f"{parent or NETWORK}/{plural}"
    one = f"{collection}/{{{param}}}"
    paths = {"CreateOrUpdate": ("PUT", one), "Get": ("GET", one), "Delete": ("DELETE", one),
             "List": ("GET", collection)}
    if tags:
        paths["UpdateTags"] = ("PATCH", one)
    if everywhere:
        paths["ListAll"] = ("GET", f"{SUB}/providers/Microsoft.Network/{plural}")
    return {f"{azure}_{verb}": Operation(method, path, tuple(f"network/{prefix}{name}.json"
                                                             for name in examples.get(verb, ())))
            for verb, (method, path) in paths.items()}


def _vm_actions() -> dict[str, Operation]:
    examples = {
        "powerOff": ("PowerOff_MinimumSet_Gen", "PowerOff_MaximumSet_Gen"),
        "deallocate": ("Deallocate_MinimumSet_Gen", "Deallocate_MaximumSet_Gen"),
        "start": ("Start_MinimumSet_Gen", "Start_MaximumSet_Gen"),
        "restart": ("Restart_MinimumSet_Gen", "Restart_MaximumSet_Gen"),
        "redeploy": ("Redeploy_MinimumSet_Gen", "Redeploy_MaximumSet_Gen"),
        "retrieveBootDiagnosticsData": ("RetrieveBootDiagnosticsData",),
    }
    return {f"VirtualMachines_{verb[0].upper()}{verb[1:]}": Operation(
        "POST", f"{VM}/{verb}", tuple(f"compute/VirtualMachine_{name}.json" for name in names), "minimal")
        for verb, names in examples.items()}


def _vm_extensions() -> dict[str, Operation]:
    one = VM + "/extensions/{vmExtensionName}"
    prefix = "compute/VirtualMachineExtension_"
    return {
        "VirtualMachineExtensions_CreateOrUpdate": Operation("PUT", one, _files(
            prefix, "CreateOrUpdate_MinimumSet_Gen", "CreateOrUpdate_MaximumSet_Gen")),
        "VirtualMachineExtensions_Update": Operation("PATCH", one, _files(prefix, "Update")),
        "VirtualMachineExtensions_Get": Operation("GET", one, _files(
            prefix, "Get_MinimumSet_Gen", "Get_MaximumSet_Gen")),
        "VirtualMachineExtensions_Delete": Operation("DELETE", one, _files(
            prefix, "Delete_MinimumSet_Gen", "Delete_MaximumSet_Gen")),
        "VirtualMachineExtensions_List": Operation("GET", VM + "/extensions", _files(
            prefix, "List_MinimumSet_Gen", "List_MaximumSet_Gen")),
    }


OPERATIONS: dict[str, Operation] = {
    "ResourceGroups_CreateOrUpdate": Operation("PUT", RG),
    "ResourceGroups_Get": Operation("GET", RG),
    "ResourceGroups_Delete": Operation("DELETE", RG, tuple(f"resources/{name}.json" for name in (
        "ForceDeleteVMsInResourceGroup", "ForceDeleteVMsAndVMSSInResourceGroup"))),
    "ResourceGroups_List": Operation("GET", SUB + "/resourceGroups"),
    "Resources_ListByResourceGroup": Operation("GET", RG + "/resources"),
    "VirtualMachines_CreateOrUpdate": Operation("PUT", VM, _files(
        "compute/VirtualMachine_Create_", "LinuxVmWithPatchSettingModeOfImageDefault", "WithDiskControllerType",
        "WithEmptyDataDisks", "WithNetworkInterfaceConfiguration", "WithBootDiagnostics", "WithSshAuthentication",
        "WithPasswordAuthentication", "WithManagedBootDiagnostics", "WithPremiumStorage", "WithEncryptionAtHost",
        "InAnAvailabilitySet", "WithUserData", "PlatformImageVmWithUnmanagedOsAndDataDisks",
        "WindowsVmWithPatchSettingModeOfManual", "WithCapacityReservation", "WithADiffOsDisk", "WithHibernationEnabled",
        "WithUefiSettings", "WithAMarketplaceImagePlan", "FromACustomImage",
        "WindowsVmWithPatchSettingModeOfAutomaticByOS", "LinuxVmWithPatchSettingModesOfAutomaticByPlatform",
        "WithScheduledEventsProfile", "WithDiskEncryptionSetResource", "WithSpotPlusPriority", "WithVMSizeProperties",
        "WithADiffOsDiskUsingDiffDiskPlacementAsCacheDisk", "WithADiffOsDiskUsingDiffDiskPlacementAsNvmeDisk",
        "WithADiffOsDiskUsingDiffDiskPlacementAsResourceDisk", "WindowsVmWithAutomaticByPlatformSettings",
        "WindowsVmWithPatchSettingAssessmentModeOfImageDefault", "WithExtensionsTimeBudget",
        "WithCapacityReservationAssignmentDisabled", "WithFips1403Enabled", "WithSecurityTypeConfidentialVM",
        "WithAdditionalDiskProperties", "WithSecurityTypeConfidentialVMWithNonPersistedTPM",
        "FromACommunityGalleryImage", "LinuxVmWithAutomaticByPlatformSettings",
        "LinuxVmWithPatchSettingAssessmentModeOfImageDefault",
        "WindowsVmWithPatchSettingModeOfAutomaticByPlatformAndEnableHotPatchingTrue",
        "WindowsVmWithPatchSettingModesOfAutomaticByPlatform", "WithApplicationProfile", "WithProxyAgentSettings",
        "FromASharedGalleryImage", "FromAGeneralizedSharedImage", "FromASpecializedSharedImage",
        "WithDeterministicProcessorMode", "WithOpportunisticProcessorMode", "WithPlacement", "WithFlexProfile",
        "WithFlexProfileEchoedVMSize", "WithInstanceProfile", "WithNetworkInterfaceConfigurationDnsSettings",
        "WithEncryptionIdentity", "WithSecurityTypeConfidentialVMWithCustomerManagedKeys",
        "WithDataDisksFromSourceResource", "InAVmssWithCustomerAssignedPlatformFaultDomain",
        "CustomImageVmFromAnUnmanagedGeneralizedOsImage")),
    "VirtualMachines_Update": Operation("PATCH", VM, _files(
        "compute/VirtualMachine_Update_", "DetachDataDiskUsingToBeDetachedProperty", "ForceDetachDataDisk",
        "WithFlexProfile", "WithInstanceProfile")),
    "VirtualMachines_Get": Operation("GET", VM, _files(
        "compute/VirtualMachine_", "Get", "Get_WithDiskControllerType", "Get_WithVMSizeProperties",
        "Get_WithDeterministicProcessorMode", "Get_WithOpportunisticProcessorMode",
        "Get_AutoPlacedOnDedicatedHostGroup", "Get_WithFlexProfile", "Get_WithInstanceProfile")),
    "VirtualMachines_InstanceView": Operation("GET", VM + "/instanceView",
                                              _files("compute/VirtualMachine_Get_", "InstanceView",
                                                     "InstanceViewAutoPlacedOnDedicatedHostGroup"), "extended_vm"),
    "VirtualMachines_Delete": Operation("DELETE", VM, ("compute/VirtualMachine_Delete_Force.json",)),
    "VirtualMachines_List": Operation("GET", COMPUTE + "/virtualMachines",
                                      ("compute/VirtualMachine_List_MinimumSet_Gen.json",)),
    "VirtualMachines_ListAll": Operation("GET", SUB + "/providers/Microsoft.Compute/virtualMachines",
                                         ("compute/VirtualMachine_ListAll_MinimumSet_Gen.json",)),
    "VirtualMachines_ListByLocation": Operation(
        "GET", SUB + "/providers/Microsoft.Compute/locations/{location}/virtualMachines",
        ("compute/VirtualMachine_ListBySubscription_ByLocation.json",)),
    **_vm_actions(),
    **_vm_extensions(),
    "Disks_CreateOrUpdate": Operation("PUT", COMPUTE + "/disks/{diskName}", _files(
        "compute/Disk_", "Create_Empty", "Create_FromAPlatformImage", "Create_ByCopyingASnapshot",
        "Create_FromAnExistingManagedDisk", "Create_WithSSDZRSAccountType", "Create_WithPremiumV2_LRSAccountType",
        "Create_UploadDisk", "Create_WithLogicalSectorSize", "CreateOrUpdate_BurstingEnabled",
        "Create_WithDiskEncryptionSet", "Create_ByImportingBlobFromTheSameSubscription", "Create_WithSecurityProfile",
        "Create_PerformancePlus", "Create_WithDiskAccess", "Create_WithUltraSSD_ReadOnly",
        "Create_WithOptimizedForFrequentAttach", "Create_InExtendedLocation", "Create_WithDataAccessAuthMode",
        "Create_FromAnAzureComputeGalleryImage", "CreateOrUpdate_AvailabilityPolicy",
        "Create_ByImportingBlobFromADifferentSubscription", "Create_FromAnElasticSanVolumeSnapshot",
        "Create_FromUploadPreparedSecure", "Create_FromImportSecure",
        "Create_ConfidentialVMSupportedDiskEncryptedWithCMK", "Create_FromAnAzureComputeGalleryCommunityImage",
        "Create_FromAnAzureComputeGalleryDirectSharedImage", "Create_FromImportSecure_WithVMMetadata")),
    "Disks_Get": Operation("GET", COMPUTE + "/disks/{diskName}", ("compute/Disk_Get.json",)),
    "Disks_Update": Operation("PATCH", COMPUTE + "/disks/{diskName}", _files(
        "compute/Disk_Update_", "ChangeTier", "DisableBursting", "AddSupportsHibernation", "AddDiskControllerTypes",
        "ToAddArchitecture", "AddAcceleratedNetworking", "DisableOptimizedForFrequentAttach", "AddPurchasePlan",
        "RemoveDiskAccess")),
    "Disks_Delete": Operation("DELETE", COMPUTE + "/disks/{diskName}", ("compute/Disk_Delete.json",)),
    "Disks_ListByResourceGroup": Operation("GET", COMPUTE + "/disks", ("compute/Disk_ListByResourceGroup.json",)),
    "Disks_List": Operation("GET", SUB + "/providers/Microsoft.Compute/disks",
                            ("compute/Disk_ListBySubscription.json",)),
    "CapacityReservationGroups_CreateOrUpdate": Operation(
        "PUT", CRG, ("compute/CapacityReservationGroup_CreateOrUpdate.json",)),
    "CapacityReservationGroups_Get": Operation("GET", CRG, ("compute/CapacityReservationGroup_Get.json",)),
    "CapacityReservations_CreateOrUpdate": Operation(
        "PUT", CRG + "/capacityReservations/{capacityReservationName}",
        ("compute/CapacityReservation_CreateOrUpdate.json",)),
    "CapacityReservations_Get": Operation("GET", CRG + "/capacityReservations/{capacityReservationName}",
                                          ("compute/CapacityReservation_Get.json",)),
    "ResourceSkus_List": Operation("GET", SUB + "/providers/Microsoft.Compute/skus",
                                   _files("compute/ListAvailableResourceSkus", "ForARegion", "",
                                          "WithExtendedLocations"), "none"),
    "Usage_List": Operation("GET", SUB + "/providers/Microsoft.Compute/locations/{location}/usages",
                            ("compute/Usage_List_MaximumSet_Gen.json",), "none"),
    **_network("networkInterfaces", "networkInterfaceName", "NetworkInterface",
               CreateOrUpdate=("Create", "CreateGatewayLoadBalancerConsumer"),
               Get=("Get",), Delete=("Delete",), List=("List",), ListAll=("ListAll",), UpdateTags=("UpdateTags",)),
    **_network("virtualNetworks", "virtualNetworkName", "VirtualNetwork", tags=False,
               CreateOrUpdate=("Create", "CreateSubnet", "CreateSubnetWithDelegation",
                               "CreateSubnetWithAddressPrefixes", "CreateServiceEndpoints", "CreateWithBgpCommunities",
                               "CreateWithEncryption"),
               Get=("Get", "GetWithSubnetDelegation", "GetWithServiceAssociationLink"), Delete=("Delete",),
               List=("List",),
               ListAll=("ListAll",)),
    **_network("subnets", "subnetName", "Subnet", parent=NETWORK + "/virtualNetworks/{virtualNetworkName}",
               everywhere=False, tags=False, CreateOrUpdate=("Create", "CreateWithDelegation", "CreateServiceEndpoint"),
               Get=("Get", "GetWithDelegation"),
               Delete=("Delete",),
               List=("List",)),
    **_network("networkSecurityGroups", "networkSecurityGroupName", "NetworkSecurityGroup",
               CreateOrUpdate=("Create", "CreateWithRule"), Get=("Get",), Delete=("Delete",),
               UpdateTags=("UpdateTags",), List=("List",), ListAll=("ListAll",)),
    **_network("applicationSecurityGroups", "applicationSecurityGroupName", "ApplicationSecurityGroup",
               CreateOrUpdate=("Create",), Get=("Get",), Delete=("Delete",), UpdateTags=("UpdateTags",),
               List=("List",), ListAll=("ListAll",)),
    **_network("loadBalancers", "loadBalancerName", "LoadBalancer",
               CreateOrUpdate=("Create", "CreateStandardSku", "CreateWithZones", "CreateWithInboundNatPool",
                               "CreateWithOutboundRules", "CreateGlobalTier"),
               Get=("Get",), Delete=("Delete",), UpdateTags=("UpdateTags",), List=("List",), ListAll=("ListAll",)),
    **_network("publicIPAddresses", "publicIpAddressName", "PublicIpAddress",
               CreateOrUpdate=("CreateDefaults", "CreateDns", "CreateCustomizedValues",
                               "CreateDnsWithDomainNameLabelScope"),
               Get=("Get",), Delete=("Delete",), UpdateTags=("UpdateTags",), List=("List",), ListAll=("ListAll",)),
    "MarketplaceAgreements_Get": Operation("GET", MARKETPLACE, ("marketplaceordering/GetMarketplaceTerms.json",),
                                           "none"),
    "MarketplaceAgreements_Create": Operation("PUT", MARKETPLACE, ("marketplaceordering/SetMarketplaceTerms.json",)),
    "AvailabilityStatuses_GetByResource": Operation(
        "GET", "/{resourceUri}/providers/Microsoft.ResourceHealth/availabilityStatuses/current",
        ("resourcehealth/AvailabilityStatus_GetByResource.json",), "none"),
    "Resources": Operation("POST", "/providers/Microsoft.ResourceGraph/resources", _files(
        "resourcegraph/Resources", "BasicQuery", "FilterQuery", "FirstPageQuery", "NextPageQuery", "PropertiesQuery",
        "SummarizeQuery", "ComplexQuery", "FacetQuery", "TenantBasicQuery", "MgBasicQuery"), "graph"),
}


@dataclass(frozen=True)
class Miss:
    """An example the emulator does not answer as Azure does, and why (listed in emulator/README.md)."""

    reason: str
    keys: frozenset[str] = field(default_factory=frozenset)  # response keys not modelled (dotted, `[]` = items)
    refused: bool = False  # the request itself is refused on purpose (400, "not supported by the azmc emulator")


MISSES: dict[str, Miss] = {
    "compute/CapacityReservationGroup_Get.json": Miss(
        "The VMs the example shows allocated are not made by the conformance setup: what VMs in a group consume "
        "is proven through the SDK (tests/emulator/test_capacity_reservations.py).",
        frozenset({"properties.instanceView.capacityReservations[].utilizationInfo.virtualMachinesAllocated[]"})),
    "compute/CapacityReservation_Get.json": Miss(
        "As `CapacityReservationGroup_Get`: the example's VMs are not made by the setup.",
        frozenset({"properties.virtualMachinesAssociated[]",
                   "properties.instanceView.utilizationInfo.virtualMachinesAllocated[]"})),
    "compute/VirtualMachine_Create_WithNetworkInterfaceConfiguration.json": Miss(
        "VMs that create their own NICs (networkInterfaceConfigurations) are not emulated: azmc creates NICs "
        "itself, and the emulator refuses such a PUT with a 400 that says so.", refused=True),
    "compute/VirtualMachine_Create_WithNetworkInterfaceConfigurationDnsSettings.json": Miss(
        "As `VirtualMachine_Create_WithNetworkInterfaceConfiguration`: VM-created NICs are not emulated.",
        refused=True),
    "compute/VirtualMachine_Get.json": Miss(
        "VMSS-managed VMs (`managedBy`: the scale set that owns the VM) are not emulated.", frozenset({"managedBy"})),
    "compute/VirtualMachine_Get_InstanceViewAutoPlacedOnDedicatedHostGroup.json": Miss(
        "Dedicated hosts are not emulated: the instance view has no `assignedHost` (the host of its host group Azure "
        "placed the VM on).", frozenset({"assignedHost"})),
    "compute/VirtualMachine_Create_WithInstanceProfile.json": Miss(
        "Gallery instance profiles (a VM's size, image and disks taken from `instanceProfile`) are not emulated: a "
        "VM created from one alone is refused with a 400 that says so; one that also gives them is kept as sent.",
        refused=True),
    "network/VirtualNetworkCreateWithBgpCommunities.json": Miss(
        "A virtual network's `regionalCommunity` is Azure's BGP community value for its region, from a table Azure "
        "keeps; the emulator has no such table and answers the network's own community only.",
        frozenset({"properties.bgpCommunities.regionalCommunity"})),
    "compute/Disk_Create_FromAPlatformImage.json": Miss(
        "A disk from a marketplace image carries the image's purchase plan, which only Azure's image catalogue "
        "knows; the emulator has none.", frozenset({"properties.purchasePlan"})),
    "compute/Disk_Create_FromAnAzureComputeGalleryImage.json": Miss(
        "A disk from a gallery image carries the security features the gallery records for the image "
        "(`supportedSecurityOption`); the emulator keeps no gallery.",
        frozenset({"properties.supportedCapabilities.supportedSecurityOption"})),
    "resourcegraph/ResourcesPropertiesQuery.json": Miss(
        "Microsoft's examples disagree on the name of an unnamed `count()`: this one says `count`, "
        "`ResourcesComplexQuery` says `count_` and sorts by it (`top 3 by count_`), as KQL names it; the emulator "
        "answers `count_`.", frozenset({"data[].count"})),
}


# Keys an example shows that Azure itself sends only in other circumstances than the example's request meets
# here: not a gap, the emulator answers as Azure would.
CIRCUMSTANTIAL: dict[str, tuple[frozenset[str], str]] = {
    "compute/Usage_List_MaximumSet_Gen.json": (
        frozenset({"nextLink"}), "the usages of a location fit one page: ARM sends `nextLink` only when another "
                                 "page follows"),
    "resourcehealth/AvailabilityStatus_GetByResource.json": (
        frozenset({"properties.resolutionETA"}), "Azure gives a resolution ETA only when its engineers have "
                                                 "estimated one"),
    **{f"compute/VirtualMachineExtension_{name}.json": (
        frozenset({"properties.protectedSettings", "properties.instanceView", "value[].properties.protectedSettings",
                   "value[].properties.instanceView"}),
        "a generated example: Azure never answers protected settings (write-only secrets), and shows an extension's "
        "instance view only for `$expand=instanceView`, which this example does not ask for")
       for name in ("CreateOrUpdate_MaximumSet_Gen", "Get_MaximumSet_Gen", "List_MaximumSet_Gen")},
    "compute/Disk_ListBySubscription.json": (
        frozenset({"nextLink"}), "the subscription's disks fit one page: ARM sends `nextLink` only when another page "
                                 "follows"),
    "compute/Disk_ListByResourceGroup.json": (
        frozenset({"nextLink"}), "the group's disks fit one page: ARM sends `nextLink` only when another page follows"),
    **{f"network/PublicIpAddressCreate{name}.json": (
        frozenset({"properties.ipConfiguration"}), "a new address is on no NIC yet: Azure shows `ipConfiguration` "
                                                   "only once a NIC holds it")
       for name in ("Defaults", "Dns", "DnsWithDomainNameLabelScope")},
    "network/PublicIpAddressCreateCustomizedValues.json": (
        frozenset({"properties.ipConfiguration", "zones"}),
        "a new address is on no NIC yet (`ipConfiguration`), and the example gives `zones` beside the request body, "
        "not in it: the request it sends makes a regional address, which Azure answers without `zones`"),
    "network/VirtualNetworkCreateServiceEndpoints.json": (
        frozenset({"properties.subnets[].properties.ipConfigurations",
                   "properties.subnets[].properties.resourceNavigationLinks"}),
        "an unused subnet: Azure lists what uses a subnet only when something does (`SubnetGet` shows neither)"),
    # Examples whose answer is another request's: what Azure answers the request as written lacks these keys.
    "network/LoadBalancerCreateGlobalTier.json": (
        frozenset({"properties.frontendIPConfigurations[].properties.inboundNatRules"}),
        "the answer names an inbound NAT rule (`in-nat-rule`) the request does not define: Azure, and the emulator, "
        "list none"),
    "network/SubnetCreateWithDelegation.json": (
        frozenset({"properties.delegations[]", "properties.purpose"}),
        "the answer shows a delegation the request does not ask for: Azure, and the emulator, answer none"),
    "compute/VirtualMachine_Create_WithSecurityTypeConfidentialVMWithNonPersistedTPM.json": (
        frozenset({"properties.osProfile.windowsConfiguration"}),
        "the answer is the Windows confidential VM example's, but the image is Linux (publisher `UbuntuServer`, sku "
        "`linux-cvm`): Azure, and the emulator, answer `linuxConfiguration`"),
    "compute/VirtualMachine_Create_WithApplicationProfile.json": (
        frozenset({"properties.osProfile.linuxConfiguration.ssh"}),
        "the answer shows an SSH key the request does not send (it sends a password): Azure, and the emulator, "
        "answer no `ssh` block"),
}


def operation_of(example: str) -> str:
    for name, operation in OPERATIONS.items():
        if example in operation.examples:
            return name
    raise KeyError(example)


# Served operations Microsoft publishes no example of (the stored examples folder of the SDK's API version has
# none): the listing says so.
UNPUBLISHED = {"ResourceGroups_CreateOrUpdate", "ResourceGroups_Get", "ResourceGroups_List",
               "Resources_ListByResourceGroup"}


# Examples whose state is not their own 200 body: an empty disk needs a size, and a tier is a premium disk's.
BEFORE: dict[str, str] = {
    "compute/Disk_Update_ChangeTier.json": "premium_disk",
    "compute/Disk_Update_DisableBursting.json": "minimal",
    "compute/Disk_CreateOrUpdate_BurstingEnabled.json": "minimal",  # a PUT that updates a disk
}


def before(operation: Operation, example: str) -> str:
    if example in BEFORE:
        return BEFORE[example]
    if operation.before:
        return operation.before
    if operation.method == "PUT":
        return "references"
    if operation.method in ("GET", "PATCH"):
        return "resource" if operation.path.endswith("}") else "list"
    return "minimal"
