"""HTTP of Microsoft.ResourceHealth: a VM's availability status."""
