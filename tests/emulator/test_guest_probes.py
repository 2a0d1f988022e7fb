"""`/_emulator/guest/{private ip}/tcp|http/...`: how the worker's probes reach a VM's guest on the dev stack.
200 `{"up": true}` for a running, booted VM without a guest fault; 503 `{"up": false, "reason"}` otherwise."""

from __future__ import annotations

import json
import urllib.error

import pytest

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def private_ip(clients: SyncClients, name: str) -> str:
    address = clients.network.network_interfaces.get(RG, f"{name}-nic").ip_configurations[0].private_ip_address
    assert address
    return address


def probe(emulator: EmulatorHandle, path: str) -> tuple[int, dict]:
    try:
        return 200, emulator._call("GET", f"/_emulator/guest/{path}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def both(emulator: EmulatorHandle, ip: str) -> list[tuple[int, dict]]:
    return [probe(emulator, f"{ip}/tcp/22"), probe(emulator, f"{ip}/http/8080/healthz/ready")]


def test_a_running_booted_vm_answers(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "web")
    ip = private_ip(clients, "web")
    assert both(emulator, ip) == [(200, {"up": True})] * 2
    assert probe(emulator, f"{ip}/http/80") == (200, {"up": True})


@pytest.mark.parametrize("fault", ["hang", "boot_failure", "kernel_panic", "host_failure"])
def test_a_guest_fault_fails_probes(emulator: EmulatorHandle, clients: SyncClients, fault: str) -> None:
    make_vm(clients, emulator, "web")
    emulator.add_guest_fault("web", fault)
    for status, body in both(emulator, private_ip(clients, "web")):
        assert status == 503 and body["up"] is False and fault in body["reason"]


def test_a_booting_vm_fails_probes_until_booted(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(time_scale=1, boot_seconds=3600)
    make_vm(clients, emulator, "web")
    ip = private_ip(clients, "web")
    for status, body in both(emulator, ip):
        assert status == 503 and "booting" in body["reason"]
    emulator.settings(time_scale=0)
    assert both(emulator, ip) == [(200, {"up": True})] * 2


@pytest.mark.parametrize("verb", ["begin_power_off", "begin_deallocate"])
def test_a_stopped_vm_fails_probes(emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    make_vm(clients, emulator, "web")
    getattr(clients.compute.virtual_machines, verb)(RG, "web").result()
    for status, body in both(emulator, private_ip(clients, "web")):
        assert status == 503 and "not running" in body["reason"]


def test_an_address_without_a_vm_fails_saying_so(emulator: EmulatorHandle) -> None:
    status, body = probe(emulator, "10.9.9.9/tcp/22")
    assert status == 503 and body == {"up": False, "reason": "no VM holds a NIC with private IP 10.9.9.9"}


@pytest.mark.parametrize("port", ["0", "65536", "ssh"])
def test_a_bad_port_is_400(emulator: EmulatorHandle, port: str) -> None:
    assert probe(emulator, f"10.0.0.4/tcp/{port}")[0] == 400
