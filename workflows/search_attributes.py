"""Typed search-attribute keys (all Keyword): what operators filter machines by in the Temporal UI.

Register them once per namespace, e.g.
`temporal operator search-attribute create --name AzmcPhase --type Keyword` (and the three others);
the dev server takes `--search-attribute AzmcPhase=Keyword`.
"""

from temporalio.common import SearchAttributeKey

AZMC_PHASE = SearchAttributeKey.for_keyword("AzmcPhase")
AZMC_MACHINE = SearchAttributeKey.for_keyword("AzmcMachine")
AZMC_RESOURCE_GROUP = SearchAttributeKey.for_keyword("AzmcResourceGroup")
AZMC_POOL = SearchAttributeKey.for_keyword("AzmcPool")

ALL_KEYS = (AZMC_PHASE, AZMC_MACHINE, AZMC_RESOURCE_GROUP, AZMC_POOL)
