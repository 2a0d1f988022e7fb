"""The Azure Retail Prices API (`GET /api/retail/prices`, public, no authentication) for virtual machines, as Microsoft
documents it: `{"BillingCurrency", "CustomerEntityId", "CustomerEntityType", "Items": [...], "NextPageLink", "Count"}`,
at most 1,000 items a page (`$skip` in `NextPageLink`), `$filter` with `eq` comparisons joined by `and` on the items'
fields (`serviceName`, `armRegionName`, `armSkuName`, `priceType`, `skuName`, `productName`, `meterName`, ...; the
values compared case-sensitively, as Microsoft warns they are since api-version 2023-01-01-preview), `currencyCode`.

An item per size, region and priority (Linux, Consumption): `skuName` "D2s v5" for a regular VM, "D2s v5 Spot" for
Spot, `unitOfMeasure` "1 Hour", `retailPrice` = `unitPrice` in USD. The hourly prices are approximations of Azure's
list prices for these sizes (a test landscape, not a price list); `POST /_emulator/prices` sets one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

PAGE = 1000
EFFECTIVE = "2026-01-01T00:00:00Z"  # the prices' effectiveStartDate
LOCATIONS = ("westeurope", "northeurope", "eastus", "westus2")
# USD an hour, Linux, regular priority, West Europe; other regions scale by _REGION_FACTOR; Spot is a fraction.
_BASE = {
    "Standard_B2s": 0.0496, "Standard_B2ms": 0.0992, "Standard_B4ms": 0.198, "Standard_D2s_v3": 0.12,
    "Standard_D4s_v3": 0.24, "Standard_D8s_v3": 0.48, "Standard_D2s_v5": 0.115, "Standard_D4s_v5": 0.23,
    "Standard_D8s_v5": 0.46, "Standard_D16s_v5": 0.92, "Standard_D2as_v5": 0.103, "Standard_D4as_v5": 0.206,
    "Standard_D2ds_v5": 0.135, "Standard_D4ds_v5": 0.27, "Standard_E2s_v5": 0.152, "Standard_E4s_v5": 0.304,
    "Standard_E8s_v5": 0.608, "Standard_F2s_v2": 0.0995, "Standard_F4s_v2": 0.199,
}
_REGION_FACTOR = {"westeurope": 1.0, "northeurope": 0.93, "eastus": 0.83, "westus2": 0.83}
_SPOT_FACTOR = {"Standard_D2as_v5": 0.13, "Standard_F2s_v2": 0.11}  # else 0.2 of the regular price
_FIELDS = {"priceType": "type"}  # the filter's name of the items' `type`, as Microsoft's examples filter it
_CONDITION = re.compile(r"^\s*(\w+)\s+eq\s+'([^']*)'\s*$")


@dataclass(frozen=True)
class Price:
    vm_size: str
    location: str
    spot: bool
    usd_per_hour: float

    def item(self, at: str) -> dict[str, Any]:
        short = self.vm_size.removeprefix("Standard_").replace("_", " ")
        sku = f"{short} Spot" if self.spot else short
        series = re.sub(r"^([A-Z]+)\d+", r"\1", short.split(" ")[0])
        return {
            "currencyCode": "USD", "tierMinimumUnits": 0.0, "retailPrice": self.usd_per_hour,
            "unitPrice": self.usd_per_hour, "armRegionName": self.location, "location": self.location,
            "effectiveStartDate": at, "meterId": f"meter-{self.vm_size}-{self.location}-{int(self.spot)}".lower(),
            "meterName": sku, "productId": f"DZH318Z0BQ{series.upper()[:4]}", "skuId": f"{series}/{sku}",
            "productName": f"Virtual Machines {series} Series", "skuName": sku, "serviceName": "Virtual Machines",
            "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": "1 Hour",
            "type": "Consumption", "isPrimaryMeterRegion": True, "armSkuName": self.vm_size,
        }


class RetailPrices:
    def __init__(self) -> None:
        self._set: dict[tuple[str, str, bool], float] = {}

    def set(self, vm_size: str, location: str, spot: bool, usd_per_hour: float) -> None:
        self._set[(vm_size.lower(), location.lower(), spot)] = usd_per_hour

    def clear(self) -> None:
        self._set.clear()

    def prices(self) -> list[Price]:
        out = []
        for size, base in _BASE.items():
            for location in LOCATIONS:
                regular = round(base * _REGION_FACTOR[location], 4)
                for spot in (False, True):
                    default = round(regular * _SPOT_FACTOR.get(size, 0.2), 4) if spot else regular
                    out.append(Price(size, location, spot, self._set.get((size.lower(), location, spot), default)))
        return out

    def page(self, base_url: str, filter_text: str, skip: int, size: int) -> dict[str, Any]:
        """One page of the answer (`size` items at most: Azure's 1,000, or the emulator's `page_size`); ValueError
        names what the filter does not allow."""
        conditions = _conditions(filter_text)
        items = [p.item(EFFECTIVE) for p in self.prices()]
        items = [i for i in items if all(str(i.get(_FIELDS.get(field, field))) == value for field, value in conditions)]
        page = items[skip:skip + size]
        following = skip + size < len(items)
        query = urlencode({**({"$filter": filter_text} if filter_text else {}), "$skip": skip + size})
        return {"BillingCurrency": "USD", "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
                "Items": page, "NextPageLink": f"{base_url}?{query}" if following else None, "Count": len(page)}


def _conditions(text: str) -> list[tuple[str, str]]:
    if not text.strip():
        return []
    out = []
    for part in re.split(r"\s+and\s+", text.strip()):
        matched = _CONDITION.match(part)
        if matched is None:
            raise ValueError(f"Invalid filter: {part.strip()!r} (the emulator supports `field eq 'value'` joined by "
                             "`and`)")
        out.append((matched.group(1), matched.group(2)))
    return out
