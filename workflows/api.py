"""The workflow's public Temporal API by name: what a starter, the `azmc` CLI, the demo and the bench call.

Names only (no behaviour): changing one breaks every client and every recorded history, so they live here once.
"""

WORKFLOW_TYPE = "MachineLifecycle"
STATUS_QUERY = "status"  # -> MachineStatus
DELETE_SIGNAL = "delete"  # {"reason", "force"}, {} or nothing
RECONCILE_SIGNAL = "reconcile"  # "try now": cut a wait short
UPDATE_SPEC = "update_spec"  # a new MachineSpec -> SpecUpdate

# The shared memory of refused offerings (workflows/offerings.py): one workflow per subscription and location,
# id models.offerings_memory.offerings_workflow_id(subscription, location).
OFFERINGS_WORKFLOW_TYPE = "Offerings"
OFFERINGS_AVAILABLE_QUERY = "available"  # OfferingsQuestion -> Availability
OFFERINGS_ENTRIES_QUERY = "entries"  # -> list[Refusal] (the current ones)
OFFERINGS_REFUSED_UPDATE = "refused"  # RefusalReport (an attempt's outcome) -> Refusal | None (None: not refused)
OFFERINGS_CLAIM_UPDATE = "claim"  # ClaimRequest -> Claim: the offering a machine tries now (models/offering_claims.py)
