"""The serial console log of an emulated guest (boot diagnostics): a Linux boot as far as the guest got, from the
same facts the VM agent status uses (emulator/compute/guest.py): boot started, booted, guest faults."""

from __future__ import annotations

from emulator.arm.store import Resource
from emulator.compute.guest import agent_state, booted
from emulator.state import EmulatorState

_KERNEL = "6.8.0-1017-azure"


def serial_log(vm: Resource, state: EmulatorState) -> str:
    """The log text: empty until the VM first boots; its boot, then a login prompt once booted, or the fault."""
    if vm.extra.get("boot") is None:
        return ""
    name = vm.name
    lines = [
        f"[    0.000000] Linux version {_KERNEL} (buildd@lcy02-amd64-051) #17-Ubuntu SMP",
        f"[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-{_KERNEL} root=PARTUUID={vm.properties.get('vmId', '')}"
        " ro console=tty1 console=ttyS0 earlyprintk=ttyS0",
        "[    0.000000] DMI: Microsoft Corporation Virtual Machine/Virtual Machine, BIOS Hyper-V UEFI Release v4.1",
        "[    0.412201] hv_vmbus: Vmbus version:5.3",
        "[    1.203311] EXT4-fs (sda1): mounted filesystem with ordered data mode.",
        "[    2.870412] systemd[1]: Detected virtualization microsoft.",
        f"[    3.101226] systemd[1]: Hostname set to <{name}>.",
    ]
    kinds = {fault.fault for fault in state.guest_faults.of(vm)}
    if "kernel_panic" in kinds:
        lines += ["[    4.220184] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
                  "[    4.220190] ---[ end Kernel panic - not syncing ]---"]
        return "\n".join(lines) + "\n"
    lines += ["[    5.604112] cloud-init[612]: Cloud-init v. 24.1.3 running 'init' at boot.",
              "[    6.992030] walinuxagent[701]: Azure Linux Agent starting"]
    if "boot_failure" in kinds:
        lines += ["[   95.118220] systemd[1]: Timed out waiting for device /dev/disk/by-uuid.",
                  "[   95.118301] systemd[1]: Dependency failed for Local File Systems.",
                  "You are in emergency mode. After logging in, type \"journalctl -xb\" to view system logs."]
    elif "hang" in kinds or agent_state(vm, state) == "unresponsive":
        lines += ["[  241.500183] INFO: task systemd:1 blocked for more than 120 seconds."]
    elif booted(vm, state):
        lines += ["[   12.440871] cloud-init[918]: Cloud-init v. 24.1.3 finished. Datasource DataSourceAzure.",
                  "", f"Ubuntu 24.04.1 LTS {name} ttyS0", "", f"{name} login: "]
    return "\n".join(lines) + "\n"
