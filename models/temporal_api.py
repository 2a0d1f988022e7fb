"""The workflows' public Temporal API by name: what a starter, the `azmc` CLI, the demo and the bench call.

Names only (no behaviour): changing one breaks every client and every recorded history, so they live here once.
In models/, not workflows/: the activities, the CLI and the worker address workflows by these names, and
importing them must run no workflow code (docs/architecture.md, "Layout and import direction").
"""

WORKFLOW_TYPE = "MachineLifecycle"
STATUS_QUERY = "status"  # -> MachineStatus (a pool: PoolStatus)
DELETE_SIGNAL = "delete"  # {"reason", "force"}, {} or nothing (a pool: {"reason"})
RECONCILE_SIGNAL = "reconcile"  # "try now": cut a wait short
FORESIGHT_SIGNAL = "foresight"  # models.foresight.Notices: what Azure announced of the VM (the fleet sweep's)
# No payload: a machine, pool or offerings memory idle on an older Worker Deployment Version continues as new on
# the current one (workflows/versioning.py); one already on it ignores it. The fleet sweep sends it after a deploy.
UPGRADE_SIGNAL = "upgrade"
UPDATE_SPEC = "update_spec"  # a new MachineSpec -> SpecUpdate

# The shared memory of refused offerings (workflows/offerings/workflow.py): one workflow per subscription and location,
# id models.offerings_memory.offerings_workflow_id(subscription, location).
OFFERINGS_WORKFLOW_TYPE = "Offerings"
OFFERINGS_AVAILABLE_QUERY = "available"  # OfferingsQuestion -> Availability
OFFERINGS_ENTRIES_QUERY = "entries"  # -> list[Refusal] (the current ones)
OFFERINGS_REFUSED_UPDATE = "refused"  # RefusalReport (an attempt's outcome) -> Refusal | None (None: not refused)
OFFERINGS_FORGET_UPDATE = "forget"  # no payload -> Forgotten: refusals and probes dropped ("capacity is back")
OFFERINGS_RELEASE_UPDATE = "release"  # ProbeRelease (a machine stopped) -> int: its probes ended
OFFERINGS_PROBES_QUERY = "probes"  # -> list[Probe]: the offerings machines are trying now, and who
OFFERINGS_CLAIM_UPDATE = "claim"  # ClaimRequest -> Claim: the offering a machine tries now (models/offering_claims.py)

PRESERVE_SIGNAL = "preserve"  # {"reason"} or nothing: deallocate the VM, keep everything, stop healing until `delete`

# MachinePool (workflows/pool/workflow.py), id pool/<resource_group>/<name>; it reuses STATUS_QUERY and DELETE_SIGNAL.
POOL_WORKFLOW_TYPE = "MachinePool"
SCALE_UPDATE = "scale"  # {"replicas": int} -> PoolStatus
SET_TEMPLATE_UPDATE = "set_template"  # {"template": PoolTemplate} -> PoolStatus (a new revision rolls out)
PAUSE_UPDATE = "pause"  # pauses a rollout (healing goes on) -> PoolStatus
RESUME_UPDATE = "resume"  # -> PoolStatus
# {"strategy", "max_replacements", "max_unhealthy", "preserve_failed", "preserve_timeout", "min_ready"}, any of
# them -> PoolStatus
SET_SETTINGS_UPDATE = "set_settings"
RESUME_REPAIRS_UPDATE = "resume_repairs"  # -> PoolStatus: repair although more than max_unhealthy are Unhealthy
# A pool's machine tells its pool its phase (sent by the child MachineLifecycle to its parent).
# A notice only: the pool acts once the machine's own workflow confirms it (workflows/pool/news.py).
MACHINE_PHASE_SIGNAL = "machine_phase"  # {"name", "phase", "preserved"}
# A pool's Unhealthy machine asks its pool before each repair step, taken once allowed (workflows/pool/repairs.py).
REPAIR_WANTED_SIGNAL = "repair_wanted"  # machine -> pool: {"name", "action"}
REPAIR_ALLOWED_SIGNAL = "repair_allowed"  # pool -> machine: {"action"}
PREEMPT_ANNOUNCED_SIGNAL = "preempt_announced"  # machine -> pool: {"name", "event_id"}: Azure will evict its Spot VM

# The long-lived types, which take UPGRADE_SIGNAL and move between versions by continuing as new.
UPGRADABLE_TYPES = (WORKFLOW_TYPE, POOL_WORKFLOW_TYPE, OFFERINGS_WORKFLOW_TYPE)
