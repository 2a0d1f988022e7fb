"""Prices and Spot eviction rates: the Azure Retail Prices API (public, not ARM) and Resource Graph's SpotResources."""
