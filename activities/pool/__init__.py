"""What a pool asks of the activities: its machines as their own workflows say (machines.py), and what Azure
still holds under its tag before it says none is left (leftovers.py)."""
