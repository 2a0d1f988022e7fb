"""HTTP of ARM itself: operation status and results, the operations refused on purpose."""
