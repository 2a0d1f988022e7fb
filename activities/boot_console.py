"""The serial console log's tail of a machine's VM (boot diagnostics): `azmc describe NAME --console`.

Azure's `retrieveBootDiagnosticsData` answers SAS URIs of the screenshot and the serial log; the log is read with a
plain HTTP GET of its URI (a SAS needs no token, so none is sent). Plain http only to a loopback host (the emulator),
as for the ARM endpoint (activities/config.py)."""

from urllib.parse import urlsplit

import aiohttp

from activities.arm import classified
from activities.clients import AzureClients
from activities.config import is_loopback_host

SAS_MINUTES = 5  # the URI is used at once


class ConsoleError(Exception):
    """Why the serial log cannot be read, in one line."""


async def serial_log_tail(clients: AzureClients, resource_group: str, name: str, lines: int) -> str:
    async with classified(f"retrieve the boot diagnostics of VM {name}"):
        data = await clients.compute.virtual_machines.retrieve_boot_diagnostics_data(
            resource_group, name, sas_uri_expiration_time_in_minutes=SAS_MINUTES)
    uri = data.serial_console_log_blob_uri or ""
    parts = urlsplit(uri)
    if parts.scheme != "https" and not (parts.scheme == "http" and is_loopback_host(parts.hostname or "")):
        raise ConsoleError(f"VM {name}: the serial log's address is not https (plain http only to loopback)")
    async with aiohttp.ClientSession() as session, session.get(uri) as response:
        if response.status != 200:
            raise ConsoleError(f"VM {name}: reading the serial log answered HTTP {response.status}")
        text = await response.text()
    return "\n".join(text.splitlines()[-lines:]) if lines > 0 else ""
