"""Helpers shared by tests: the emulator handle and real SDK clients pointed at it."""
