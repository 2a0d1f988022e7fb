"""Azure's display text per VM power state (instance view and Resource Graph rows say the same)."""

POWER_TEXT = {
    "running": "VM running",
    "starting": "VM starting",
    "stopping": "VM stopping",
    "stopped": "VM stopped",
    "deallocating": "VM deallocating",
    "deallocated": "VM deallocated",
}
