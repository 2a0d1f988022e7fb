"""Which MachineSpec field an Azure refusal of a VM PUT is about, for the fields Azure names only in its own terms
(an ephemeral OS disk is "DiffDiskPlacement" to it): the machine's error then names the field to change."""

# (words of Azure's message, lower case) -> the spec field; the first match wins.
_FIELDS = (
    (("ephemeral", "diffdiskplacement", "diff disk placement"), "os_disk.ephemeral"),
    (("encryptionathost",), "encryption_at_host"),
    (("diskencryptionset",), "disk_encryption_set_id"),
    (("capacityreservation",), "capacity_reservation_group_id"),
    (("proximityplacementgroup",), "proximity_placement_group_id"),
    (("availabilityset", "availability set"), "availability_set_id"),
)


def spec_field_hint(message: str) -> str:
    """" (spec field os_disk.ephemeral)" when Azure's refusal is about one of these fields, else ""."""
    lowered = message.lower()
    for words, field in _FIELDS:
        if any(word in lowered for word in words):
            return f" (spec field {field})"
    return ""
