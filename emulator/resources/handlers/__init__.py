"""HTTP of Microsoft.Resources: resource groups and the listing of a group's resources."""
