"""The operator's tools: the `azmc` CLI, the embedded dev stack and the demo."""
