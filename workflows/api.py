"""The workflow's public Temporal API by name: what a starter, the `azmc` CLI, the demo and the bench call.

Names only (no behaviour): changing one breaks every client and every recorded history, so they live here once.
"""

WORKFLOW_TYPE = "MachineLifecycle"
STATUS_QUERY = "status"  # -> MachineStatus
DELETE_SIGNAL = "delete"  # {"reason", "force"}, {} or nothing
RECONCILE_SIGNAL = "reconcile"  # "try now": cut a wait short
UPDATE_SPEC = "update_spec"  # a new MachineSpec -> SpecUpdate
PRESERVE_SIGNAL = "preserve"  # {"reason"} or nothing: deallocate the VM, keep everything, stop healing until `delete`
