"""Per resource type: state changes and Azure's rules, independent of HTTP."""
