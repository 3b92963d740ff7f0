#!/bin/sh
# Runs inside the booted image (scripts/boot-image), from the test seed's runcmd: the last of cloud-init, so
# after the boot and the service. Checks what the image promises from the inside: the read-only root, the state
# partition grown, the seed applied, no console on the GPS UART, the service running from the FAT partition's
# configuration with the LED line driven; at the second boot, what the first one left. Prints BOOT_PASS /
# BOOT_FAIL lines, BOOT_STATE and BOOT_LED, then powers off.
# The host checks what reaches the broker.
set -u
out=/dev/hvc0
say() { echo "$*" > "$out"; }
pass() { say "BOOT_PASS $*"; }
fail() { say "BOOT_FAIL $*"; }
check() { what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

say "BOOT_GUEST kernel=$(uname -r) up=$(cut -d' ' -f1 /proc/uptime)"
check "root is overlayroot's RAM overlay ($(findmnt -no FSTYPE /))" test "$(findmnt -no FSTYPE /)" = overlay
state_mb=$(df -m --output=size /var/lib/ridegate-state | tail -1 | tr -d ' ')
check "state partition grown to the disk's end (${state_mb} MB)" test "${state_mb:-0}" -gt 1000
check "state partition mounted writable" sh -c 'findmnt -no OPTIONS /var/lib/ridegate-state | grep -q "^rw"'
check "ridegate's state directory is on it" sh -c 'findmnt -no SOURCE /var/lib/ridegate | grep -q "\[/ridegate\]"'
check "host name from the seed ($(hostname))" test "$(hostname)" = testbike
check "the seed's user exists" id rider
check "no console on a UART: $(cat /proc/cmdline)" sh -c '! grep -qE "console=(ttyS|ttyAMA|serial)" /proc/cmdline'
check "SSH host key kept on the state partition" test -s /etc/ssh/keys/ssh_host_ed25519_key
# The service, its configuration the FAT partition's.
for _ in $(seq 60); do systemctl is-active --quiet ridegate && break; sleep 1; done
check "ridegate.service active: $(systemctl show ridegate -p StatusText --value)" systemctl is-active --quiet ridegate
check "runs with /boot/firmware/ridegate.toml" sh -c 'tr "\0" " " < /proc/$(systemctl show ridegate -p MainPID --value)/cmdline | grep -q "/boot/firmware/ridegate.toml"'
# What must outlive a reboot on the read-only root: the SSH host key and the ride, on the state partition.
key=$(ssh-keygen -lf /etc/ssh/keys/ssh_host_ed25519_key.pub 2>/dev/null | awk '{print $2}')
points=$(ridegate rides list --json --state-directory /var/lib/ridegate 2>/dev/null \
    | python3 -c 'import json, sys; print(sum(r["points"] or 0 for r in json.load(sys.stdin)))' 2>/dev/null || echo 0)
say "BOOT_STATE key=$key points=$points"
# The second boot (scripts/boot-image wrote what the first one saw, and a mistyped ridegate.toml).
if [ -f /boot/firmware/boot-test/first-boot ]; then
    . /boot/firmware/boot-test/first-boot
    check "the SSH host key is the first boot's" test -n "$key" -a "$key" = "${first_key:-}"
    check "the first boot's ride is kept (${first_points:-0} points then, $points now)" test "${first_points:-0}" -gt 0 -a "$points" -ge "${first_points:-0}"
    check "the mistyped file is named in the log, the last good one runs" sh -c 'journalctl -u ridegate --no-pager | grep "the configuration file was refused" | grep -q "mqtt_port"'
fi
say "BOOT_LED $(python3 /boot/firmware/boot-test/sample_led.py "$(cat /run/boot-test-led)" 12)"
say "---- journal of ridegate.service"
journalctl -u ridegate -o short-monotonic --no-pager | tail -25 > "$out"
say "BOOT_GUEST_DONE"
# Once cloud-init has finished the stage this runs in.
systemd-run --quiet --on-active=5 systemctl poweroff
