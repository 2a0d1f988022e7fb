"""Microsoft.Compute: virtual machines and their parts, disks, a VM's guest, what a VM refers to outside the resource
groups; `allocation/` is capacity and quota, `handlers/` the HTTP."""
