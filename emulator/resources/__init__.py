"""Microsoft.Resources: resource groups and ARM's listing of a group's resources; `handlers/` is the HTTP."""
