"""Microsoft.ResourceGraph: the graph's index of the store (with its lag), its route, and `query/`, the KQL subset
engine."""
