"""The probe of a machine's guest, run by the worker: a TCP connect or an HTTP GET to its NIC's private IP.

Against the emulator there is no guest network: the probe asks the emulator's guest endpoint
(`/_emulator/guest/<ip>/...`), which answers as the guest at that IP would (docs/health.md).
"""

import asyncio

import aiohttp

from activities.arm import classified, get_or_none
from activities.clients import AzureClients
from models.health_io import ProbeInput, ProbeResult
from models.naming import nic_name
from models.spec import MachineSpec


async def guest_address(clients: AzureClients, spec: MachineSpec) -> str:
    """The private IP of the machine's NIC (one ARM read); "" when the NIC or its address does not exist."""
    name = nic_name(spec.name)
    async with classified(f"get NIC {name}"):
        nic = await get_or_none(clients.network.network_interfaces.get(spec.resource_group, name))
    configs = (nic.ip_configurations or []) if nic is not None else []
    return next((c.private_ip_address for c in configs if c.private_ip_address), "")


async def probe_guest(clients: AzureClients, inp: ProbeInput) -> ProbeResult:
    """One probe within its timeout. Never raises for the guest's answer: a failed probe is a result."""
    if not inp.address:
        return ProbeResult(ok=False, detail="the NIC has no private IP")
    probe, seconds = inp.probe, inp.probe.timeout.total_seconds()
    target = probe.target(inp.address)
    try:
        async with asyncio.timeout(seconds):
            if clients.guest_proxy:
                return await _through(clients.probe_session(), clients.guest_proxy, inp, target)
            if probe.tcp is not None:
                _, writer = await asyncio.open_connection(inp.address, probe.tcp.port)
                writer.close()
                return ProbeResult(ok=True, detail=f"{target}: connected")
            return await _http_get(clients.probe_session(),
                                   f"http://{inp.address}:{probe.http.port}{probe.http.path}",  # type: ignore[union-attr]  # the validator holds exactly one of tcp and http
                                   probe.http.expect_status, target)  # type: ignore[union-attr]  # the validator holds exactly one of tcp and http
    except TimeoutError:
        return ProbeResult(ok=False, detail=f"{target}: no answer within {seconds:g}s")
    except (OSError, aiohttp.ClientError) as err:
        return ProbeResult(ok=False, detail=f"{target}: {type(err).__name__}: {err}"[:300])


async def _http_get(session: aiohttp.ClientSession, url: str, expect: int, target: str) -> ProbeResult:
    async with session.get(url, allow_redirects=False) as answer:
        ok = answer.status == expect
        return ProbeResult(ok=ok, detail=f"{target}: HTTP {answer.status}" + ("" if ok else f", expected {expect}"))


async def _through(session: aiohttp.ClientSession, proxy: str, inp: ProbeInput, target: str) -> ProbeResult:
    """The emulator's stand-in for the guest network: 200 when the guest would answer, 503 with why not."""
    probe = inp.probe
    path = f"tcp/{probe.tcp.port}" if probe.tcp else f"http/{probe.http.port}{probe.http.path}"  # type: ignore[union-attr]  # the validator holds exactly one of tcp and http
    async with session.get(f"{proxy}/{inp.address}/{path}") as answer:
        if answer.status == 200:
            return ProbeResult(ok=True, detail=f"{target}: answered")
        try:
            why = str((await answer.json(content_type=None)).get("reason", ""))
        except ValueError:
            why = ""
        return ProbeResult(ok=False, detail=f"{target}: no answer ({why or f'HTTP {answer.status}'})")
