"""HTTP of Microsoft.Network: one module per resource type, each exposing `routes()`."""
