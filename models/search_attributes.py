"""Typed search-attribute keys: what operators filter machines and pools by in the Temporal UI.

Register them once per namespace, e.g.
`temporal operator search-attribute create --name AzmcPhase --type Keyword` (each with its TYPE_NAMES type);
the dev server takes `--search-attribute AzmcPhase=Keyword`.
"""

from types import MappingProxyType
from typing import Any

from temporalio.common import SearchAttributeIndexedValueType, SearchAttributeKey

AZMC_PHASE = SearchAttributeKey.for_keyword("AzmcPhase")
AZMC_MACHINE = SearchAttributeKey.for_keyword("AzmcMachine")
AZMC_RESOURCE_GROUP = SearchAttributeKey.for_keyword("AzmcResourceGroup")
AZMC_POOL = SearchAttributeKey.for_keyword("AzmcPool")

# On a MachinePool workflow (besides AzmcPool and AzmcResourceGroup): its rollout phase and replica counts,
# e.g. `AzmcPoolPhase = "Stuck"` or `AzmcPoolAvailable < AzmcPoolReplicas`-style filters on numbers.
AZMC_POOL_PHASE = SearchAttributeKey.for_keyword("AzmcPoolPhase")
AZMC_POOL_REPLICAS = SearchAttributeKey.for_int("AzmcPoolReplicas")
AZMC_POOL_AVAILABLE = SearchAttributeKey.for_int("AzmcPoolAvailable")
AZMC_POOL_UPDATED = SearchAttributeKey.for_int("AzmcPoolUpdated")

ALL_KEYS = (AZMC_PHASE, AZMC_MACHINE, AZMC_RESOURCE_GROUP, AZMC_POOL,
            AZMC_POOL_PHASE, AZMC_POOL_REPLICAS, AZMC_POOL_AVAILABLE, AZMC_POOL_UPDATED)

# The type names the `temporal` CLI and dev server take.
TYPE_NAMES = MappingProxyType({SearchAttributeIndexedValueType.KEYWORD: "Keyword",
                               SearchAttributeIndexedValueType.INT: "Int"})  # read-only: shared (workers/sandbox.py)


def type_name(key: SearchAttributeKey[Any]) -> str:
    return TYPE_NAMES[key.indexed_value_type]
