"""The control API under `/_emulator/` (emulator/README.md): faults, resources, requests, settings, reset, capacity and
quota, the catalog, guests and Resource Health, in one place."""
