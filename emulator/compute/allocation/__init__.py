"""What a VM's allocation meets: capacity per size, zone and priority, vCPU quotas, the usages API and what each size
is."""
