"""Azure's request limits, by profile (`--limits none|azure`): ARM's per-subscription buckets, the network
provider's 5-minute windows and the compute provider's per-minute policies. All run on wall time."""
