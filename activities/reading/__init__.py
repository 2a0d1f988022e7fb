"""Reading Azure, one module per thing read: a VM (vm.py), a machine's resources as ARM lists them
(machine_resources.py), a machine's inventory built from those two (inventory.py), the Resource Graph
(graph.py) and the fleet it shows (fleet.py)."""
