"""Bootstrap data a VM gets at creation: Azure's customData (cloud-init or a script) and userData.

Both are secrets (join tokens): MachineSpec keeps them out of its repr, validation messages name the
field and the limit but never quote the value, and nothing in the status, search attributes, current
details or static summary is derived from them. Azure's limit for both is 64 KB before base64 (customData:
"the maximum length of the binary array is 65535 bytes"; userData: "the size can't exceed 64 KB").
"""

import base64

MAX_BOOTSTRAP_BYTES = 65535
BOOTSTRAP_FIELDS = ("custom_data", "user_data")


def check_bootstrap_size(field: str, value: str) -> str:
    size = len(value.encode())
    if size > MAX_BOOTSTRAP_BYTES:
        raise ValueError(f"{field} is {size} bytes (UTF-8); Azure allows at most {MAX_BOOTSTRAP_BYTES} bytes "
                         "(64 KB) before base64")
    return value


def to_base64(value: str) -> str | None:
    """What the VM PUT carries (Azure expects base64); None when empty, so the field is left out."""
    return base64.b64encode(value.encode()).decode() if value else None
