"""The health activities: Resource Health, the repair steps (restart, redeploy), the probe of the guest."""
