"""The `Resources` table: its columns in Resource Graph's order and their result-format types."""

from __future__ import annotations

# Column order of `Resources` as Resource Graph returns whole rows.
RESOURCE_COLUMNS: tuple[str, ...] = (
    "id",
    "name",
    "type",
    "tenantId",
    "kind",
    "location",
    "resourceGroup",
    "subscriptionId",
    "managedBy",
    "sku",
    "plan",
    "properties",
    "tags",
    "identity",
    "zones",
    "extendedLocation",
)

RESOURCE_COLUMN_TYPES: dict[str, str] = {
    **{name: "string" for name in RESOURCE_COLUMNS[:9]},
    **{name: "object" for name in RESOURCE_COLUMNS[9:]},
}
