"""`workflow.patched` ids: each marks a change in workflow logic that running machines must survive.

A machine whose history predates a patch replays the old branch; new work takes the new one. Remove a
branch only after no open workflow (and no history in tests/histories/) can still reach it.
"""

# Creation and health checks read only the VM (find_vm, one ARM GET) instead of the full inventory
# (get_machine_status, up to 5 requests when there is no VM): neither decision depends on a NIC or disk.
FIND_VM_FOR_DECISIONS = "find-vm-for-creation-and-health"

# A run whose workflow id is not `machine/<resource_group>/<name>` of its own spec fails at once: two
# workflows must never manage one machine. Checked only on a mismatch, so correct ids add no marker.
WORKFLOW_ID_MATCHES_SPEC = "workflow-id-matches-spec"

# A history limit (memo azmc_history_limit, or carried) below policies.MIN_HISTORY_LIMIT is raised to
# it, so a run cannot continue as new about once a second forever. Checked only for such a limit.
HISTORY_LIMIT_FLOOR = "history-limit-floor"
