"""Azure side effects: SDK clients, error classification and the driver activities (see driver.py)."""
