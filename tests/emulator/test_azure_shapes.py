"""What Azure always answers and the emulator used to leave out, read through the real SDKs: an NSG's default rules,
a load balancer's children and what uses them, a public IP's DDoS settings, the instance view's boot diagnostics
blobs, patch status and guest OS, and Resource Graph's `top` and facets."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm
from azure.mgmt.resourcegraph.models import FacetRequest, FacetRequestOptions, QueryRequest

from tests.emulator.builders import LOCATION, RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def test_a_new_nsg_has_azures_six_default_rules_and_its_rules_have_ids(clients: SyncClients) -> None:
    rule = nm.SecurityRule(name="ssh", protocol="Tcp", source_address_prefix="*", destination_address_prefix="*",
                           source_port_range="*", destination_port_range="22", access="Allow", priority=100,
                           direction="Inbound")
    nsg = clients.network.network_security_groups.begin_create_or_update(
        RG, "shapes-nsg", nm.NetworkSecurityGroup(location=LOCATION, security_rules=[rule])).result()
    assert [(r.name, r.priority, r.access) for r in nsg.default_security_rules] == [
        ("AllowVnetInBound", 65000, "Allow"), ("AllowAzureLoadBalancerInBound", 65001, "Allow"),
        ("DenyAllInBound", 65500, "Deny"), ("AllowVnetOutBound", 65000, "Allow"),
        ("AllowInternetOutBound", 65001, "Allow"), ("DenyAllOutBound", 65500, "Deny")]
    assert nsg.security_rules[0].id == f"{nsg.id}/securityRules/ssh"
    assert nsg.security_rules[0].provisioning_state == "Succeeded"


def test_a_load_balancers_children_have_ids_and_name_the_rules_that_use_them(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    lb_id = f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Network/" \
            "loadBalancers/shapes-lb"
    body = nm.LoadBalancer(
        location=LOCATION,
        frontend_ip_configurations=[nm.FrontendIPConfiguration(name="fe", subnet=nm.Subnet(id=emulator.subnet_id))],
        backend_address_pools=[nm.BackendAddressPool(name="be")],
        probes=[nm.Probe(name="probe", protocol="Tcp", port=22)],
        load_balancing_rules=[nm.LoadBalancingRule(
            name="rule", protocol="Tcp", frontend_port=80, backend_port=80,
            frontend_ip_configuration=nm.SubResource(id=f"{lb_id}/frontendIPConfigurations/fe"),
            backend_address_pool=nm.SubResource(id=f"{lb_id}/backendAddressPools/be"),
            probe=nm.SubResource(id=f"{lb_id}/probes/probe"))])
    lb = clients.network.load_balancers.begin_create_or_update(RG, "shapes-lb", body).result()
    rule_id = f"{lb_id}/loadBalancingRules/rule"
    frontend = lb.frontend_ip_configurations[0]
    assert (frontend.id, frontend.type) == (f"{lb_id}/frontendIPConfigurations/fe",
                                           "Microsoft.Network/loadBalancers/frontendIPConfigurations")
    assert frontend.private_ip_address and frontend.private_ip_allocation_method == "Dynamic"
    assert [r.id for r in frontend.load_balancing_rules] == [rule_id]
    assert [r.id for r in lb.backend_address_pools[0].load_balancing_rules] == [rule_id]
    assert [r.id for r in lb.probes[0].load_balancing_rules] == [rule_id]
    assert (lb.probes[0].interval_in_seconds, lb.load_balancing_rules[0].idle_timeout_in_minutes) == (15, 4)
    # The frontend holds an address in the subnet: listed there, and the subnet cannot go while it does.
    vnet_name, subnet_name = emulator.subnet_id.split("/")[-3], emulator.subnet_id.split("/")[-1]
    subnet = clients.network.subnets.get(RG, vnet_name, subnet_name)
    assert frontend.id in [c.id for c in subnet.ip_configurations]
    with pytest.raises(HttpResponseError) as refused:
        clients.network.subnets.begin_delete(RG, vnet_name, subnet_name).result()
    assert refused.value.error.code == "InUseSubnetCannotBeDeleted"


def test_a_public_ip_carries_ddos_settings_and_shows_the_frontend_that_holds_it(clients: SyncClients) -> None:
    pip = clients.network.public_ip_addresses.begin_create_or_update(
        RG, "shapes-ip", nm.PublicIPAddress(location=LOCATION, public_ip_allocation_method="Static")).result()
    assert pip.ddos_settings.protection_mode == "VirtualNetworkInherited"
    clients.network.load_balancers.begin_create_or_update(RG, "shapes-public-lb", nm.LoadBalancer(
        location=LOCATION, frontend_ip_configurations=[nm.FrontendIPConfiguration(
            name="public", public_ip_address=nm.PublicIPAddress(id=pip.id))])).result()
    held = clients.network.public_ip_addresses.get(RG, "shapes-ip")
    assert held.ip_configuration.id.endswith("/loadBalancers/shapes-public-lb/frontendIPConfigurations/public")
    with pytest.raises(HttpResponseError) as refused:
        clients.network.public_ip_addresses.begin_delete(RG, "shapes-ip").result()
    assert refused.value.error.code == "PublicIPAddressCannotBeDeleted"


def test_a_public_frontend_shows_its_allocation_method_and_ip_version(clients: SyncClients) -> None:
    pip = clients.network.public_ip_addresses.begin_create_or_update(
        RG, "front-ip", nm.PublicIPAddress(location=LOCATION, public_ip_allocation_method="Static")).result()
    lb = clients.network.load_balancers.begin_create_or_update(RG, "public-lb", nm.LoadBalancer(
        location=LOCATION, sku=nm.LoadBalancerSku(name="Standard"), frontend_ip_configurations=[
            nm.FrontendIPConfiguration(name="public", public_ip_address=nm.PublicIPAddress(id=pip.id))])).result()
    front = lb.frontend_ip_configurations[0]
    assert (front.private_ip_allocation_method, front.private_ip_address_version) == ("Dynamic", "IPv4")
    assert front.private_ip_address is None


def test_a_subnets_delegations_and_service_endpoints_are_provisioned(emulator: EmulatorHandle,
                                                                     clients: SyncClients) -> None:
    vnet_name = emulator.subnet_id.split("/")[-3]
    sql = nm.Delegation(name="sql", service_name="Microsoft.Sql/managedInstances")
    subnet = clients.network.subnets.begin_create_or_update(
        RG, vnet_name, "delegated", nm.Subnet(address_prefix="10.0.200.0/24", delegations=[sql])).result()
    (delegation,) = subnet.delegations
    storage = nm.ServiceEndpointPropertiesFormat(service="Microsoft.Storage")
    endpoint = clients.network.subnets.begin_create_or_update(RG, vnet_name, "to-storage", nm.Subnet(
        address_prefix="10.0.201.0/24", service_endpoints=[storage])).result().service_endpoints[0]
    assert (endpoint.provisioning_state, endpoint.locations) == ("Succeeded", [LOCATION])
    assert delegation.id == f"{subnet.id}/delegations/sql" and delegation.etag
    assert (delegation.provisioning_state, delegation.actions, subnet.purpose) == ("Succeeded", [], "")


def test_a_public_ips_dns_label_gets_its_azure_name(clients: SyncClients) -> None:
    pip = clients.network.public_ip_addresses.begin_create_or_update(RG, "named-ip", nm.PublicIPAddress(
        location="East US", dns_settings=nm.PublicIPAddressDnsSettings(domain_name_label="azmc-label"))).result()
    assert pip.dns_settings.fqdn == "azmc-label.eastus.cloudapp.azure.com"
    scoped = clients.network.public_ip_addresses.begin_create_or_update(RG, "scoped-ip", nm.PublicIPAddress(
        location=LOCATION, dns_settings=nm.PublicIPAddressDnsSettings(domain_name_label="azmc-label",
                                                                       domain_name_label_scope="TenantReuse"))).result()
    label, hashed, region, *rest = scoped.dns_settings.fqdn.split(".")
    assert (label, len(hashed), region, rest) == ("azmc-label", 16, LOCATION, ["sysgen", "cloudapp", "azure", "com"])


def test_instance_view_names_boot_diagnostics_blobs_patch_status_and_the_windows_guest(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    body = vm_body("shapes-win", make_nic(clients, emulator, "shapes-win-nic"), data_disks=0)
    body.storage_profile.image_reference = cm.ImageReference(
        publisher="MicrosoftSQLServer", offer="sql2022-ws2022", sku="enterprise-gen2", version="latest")
    body.diagnostics_profile = cm.DiagnosticsProfile(boot_diagnostics=cm.BootDiagnostics(
        enabled=True, storage_uri="https://diag.blob.core.windows.net/"))
    vm = clients.compute.virtual_machines.begin_create_or_update(RG, "shapes-win", body).result()
    view = clients.compute.virtual_machines.instance_view(RG, "shapes-win")
    folder = f"https://diag.blob.core.windows.net/bootdiagnostics-shapeswin-{vm.vm_id}"
    assert view.boot_diagnostics.serial_console_log_blob_uri == f"{folder}/shapes-win.{vm.vm_id}.serialconsole.log"
    assert view.boot_diagnostics.console_screenshot_blob_uri == f"{folder}/shapes-win.{vm.vm_id}.screenshot.bmp"
    assert vm.storage_profile.os_disk.os_type == "Windows"  # a SQL Server image runs on Windows Server
    assert view.os_name.startswith("Windows Server") and view.os_version.startswith("Microsoft Windows NT 10.0.")
    assert [s.code for s in view.patch_status.configuration_statuses] == [
        "PatchModeConfigurationState/Ready", "AssessmentModeConfigurationState/Ready"]
    assert view.vm_agent.extension_handlers == []


def test_graph_answers_top_and_facets(emulator: EmulatorHandle, clients: SyncClients) -> None:
    for name in ("facet-a", "facet-b"):
        make_nic(clients, emulator, name)
    answer = clients.graph.resources(QueryRequest(
        subscriptions=[emulator.subscription_id],
        query="Resources | where type =~ 'microsoft.network/networkinterfaces' | project id, name, location",
        facets=[FacetRequest(expression="location", options=FacetRequestOptions(top=3)),
                FacetRequest(expression="nowhere")]))
    located, missing = answer.facets
    assert (located.result_type, located.total_records, located.data) == (
        "FacetResult", 1, [{"location": LOCATION, "count": answer.total_records}])
    assert missing.result_type == "FacetError" and missing.errors[0].code == "NoValidColumns"
    top = clients.graph.resources(QueryRequest(
        subscriptions=[emulator.subscription_id],
        query="Resources | summarize count() by type | top 1 by count_ desc"))
    assert top.count == 1 and set(top.data[0]) == {"type", "count_"}


def test_a_vm_extension_shows_in_the_vm_and_its_instance_view_and_keeps_its_secrets(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = clients.compute.virtual_machines.begin_create_or_update(
        RG, "shapes-ext", vm_body("shapes-ext", make_nic(clients, emulator, "shapes-ext-nic"), data_disks=0)).result()
    extension = clients.compute.virtual_machine_extensions.begin_create_or_update(
        RG, "shapes-ext", "run", cm.VirtualMachineExtension(
            location=vm.location, properties=cm.VirtualMachineExtensionProperties(
                publisher="Microsoft.Azure.Extensions", type="CustomScript", type_handler_version="2.1",
                protected_settings={"commandToExecute": "secret"}))).result()
    assert (extension.id, extension.properties.provisioning_state) == (f"{vm.id}/extensions/run", "Succeeded")
    assert extension.properties.protected_settings is None  # write-only, as in Azure
    assert [r.id for r in clients.compute.virtual_machines.get(RG, "shapes-ext").resources] == [extension.id]
    view = clients.compute.virtual_machines.instance_view(RG, "shapes-ext")
    assert [(e.name, e.type, e.statuses[0].code) for e in view.extensions] == [
        ("run", "Microsoft.Azure.Extensions.CustomScript", "ProvisioningState/succeeded")]
    assert [h.type for h in view.vm_agent.extension_handlers] == ["Microsoft.Azure.Extensions.CustomScript"]
    clients.compute.virtual_machine_extensions.begin_delete(RG, "shapes-ext", "run").result()
    assert clients.compute.virtual_machine_extensions.list(RG, "shapes-ext").value == []
