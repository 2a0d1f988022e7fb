"""HTTP of Microsoft.Compute (and the marketplace terms a VM's plan needs): one module per resource type, each exposing
`routes()`."""
