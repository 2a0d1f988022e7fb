"""Microsoft.Network: network interfaces, virtual networks and subnets, security groups, load balancers, public IP
addresses; `handlers/` is the HTTP."""
