"""Encryption of every Temporal payload azmc sends (AES-256-GCM), its keys, and the codec server."""
