"""HTTP layer: one module per resource type, each exposing `routes()`."""
