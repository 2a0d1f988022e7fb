"""What a VM's image says about its guest: Windows or Linux, and the OS name and version its VM agent reports in
the instance view. Azure knows this from the image's metadata; the emulator reads it from the image reference:
Microsoft's Windows publishers and the offers and SKUs that name Windows (SQL Server, Visual Studio and data
science images run on Windows Server too)."""

from __future__ import annotations

import re
from typing import Any

_WINDOWS_PUBLISHERS = {"microsoftwindowsserver", "microsoftwindowsdesktop", "microsoftsqlserver",
                       "microsoftvisualstudio", "microsoftbiztalkserver", "microsoftdynamicsax",
                       "microsoftsharepoint", "microsoftwindowsserverhpcpack", "microsoftazuresiterecovery"}
_WINDOWS_NAME = re.compile(r"windows|(^|[-_])ws20\d\d|(^|[-_])win(10|11|-?20\d\d)", re.IGNORECASE)
# Windows Server's kernel version per release, as the agent reports it ("Microsoft Windows NT 10.0.17763.0").
_WINDOWS_NT = {"2012-r2": "6.3.9600", "2012": "6.2.9200", "2016": "10.0.14393", "2019": "10.0.17763",
               "2022": "10.0.20348", "2025": "10.0.26100"}
_UBUNTU_CODENAMES = {"focal": "20.04", "jammy": "22.04", "noble": "24.04", "bionic": "18.04"}


def is_windows(image: dict[str, Any]) -> bool:
    publisher = str(image.get("publisher") or "").lower()
    if publisher in _WINDOWS_PUBLISHERS:
        return True
    return any(_WINDOWS_NAME.search(str(image.get(key) or "")) for key in ("offer", "sku"))


def guest_os(image: dict[str, Any], windows: bool) -> tuple[str, str]:
    """(osName, osVersion) as the VM agent reports them for a guest booted from `image`."""
    sku = str(image.get("sku") or "")
    if windows:
        release = next((r for r in _WINDOWS_NT if sku.lower().startswith(r)), "")
        edition = "Datacenter" if "datacenter" in sku.lower() else sku.split("-", 1)[-1].replace("-", " ")
        name = f"Windows Server {release.upper().replace('-', ' ')} {edition}".replace("  ", " ").strip()
        return name, f"Microsoft Windows NT {_WINDOWS_NT.get(release, '10.0.20348')}.0"
    offer = str(image.get("offer") or "").lower()
    publisher = str(image.get("publisher") or "").lower()
    version = next((v for codename, v in _UBUNTU_CODENAMES.items() if codename in offer), "")
    digits = re.match(r"(\d+)[._-](\d+)", sku)
    if not version and digits:
        version = f"{digits.group(1)}.{digits.group(2)}"
    if "canonical" in publisher or "ubuntu" in offer:
        return "ubuntu", version or "22.04"
    distro = {"redhat": "redhat", "suse": "sles", "debian": "debian", "openlogic": "centos",
              "almalinux": "almalinux", "microsoftcblmariner": "mariner"}.get(publisher, offer or "linux")
    return distro, version or re.sub(r"[^0-9.]", "", sku) or "1.0"
