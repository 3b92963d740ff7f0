#!/bin/sh
# Runs inside the booted image (scripts/boot-image), as a per-boot script the test seed's bootcmd names:
# cloud-final runs it late in every boot, after the service has started. Checks what the image promises from the
# inside: the first boot's writable root (the seed applied to the card), the state partition grown, the seed
# applied, no console on the GPS UART, avahi, the service running from the FAT partition's configuration with
# the LED line driven; at the second boot the read-only root, the seed not applied again, and what the first boot
# left. Prints BOOT_PASS / BOOT_FAIL lines, BOOT_STATE and BOOT_LED, then powers off.
# The host checks what reaches the broker.
set -u
out=/dev/hvc0
say() { echo "$*" > "$out"; }
pass() { say "BOOT_PASS $*"; }
fail() { say "BOOT_FAIL $*"; }
check() { what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

say "BOOT_GUEST kernel=$(uname -r) up=$(cut -d' ' -f1 /proc/uptime)"
second=0
[ -f /boot/firmware/boot-test/first-boot ] && second=1
root="$(findmnt -no FSTYPE,OPTIONS /)"
if [ "$second" = 1 ]; then
    check "root is overlayroot's RAM overlay ($root)" test "$(findmnt -no FSTYPE /)" = overlay
else
    check "the first boot's root is the card's, writable: the seed is applied there ($root)" \
        sh -c 'findmnt -no FSTYPE / | grep -qx ext4 && findmnt -no OPTIONS / | grep -q "^rw"'
fi
state_mb=$(df -m --output=size /var/lib/ridegate-state | tail -1 | tr -d ' ')
check "state partition grown to the disk's end (${state_mb} MB)" test "${state_mb:-0}" -gt 1000
check "state partition mounted writable" sh -c 'findmnt -no OPTIONS /var/lib/ridegate-state | grep -q "^rw"'
check "ridegate's state directory is on it" sh -c 'findmnt -no SOURCE /var/lib/ridegate | grep -q "\[/ridegate\]"'
check "host name from the seed ($(hostname))" test "$(hostname)" = testbike
check "the seed's user exists" id rider
check "no console on a UART: $(cat /proc/cmdline)" sh -c '! grep -qE "console=(ttyS|ttyAMA|serial)" /proc/cmdline'
check "SSH host key kept on the state partition" test -s /etc/ssh/keys/ssh_host_ed25519_key
check "avahi answers for $(hostname).local" systemctl is-active --quiet avahi-daemon
check "Imager's Wi-Fi for wlan0 in netplan's configuration" sh -c 'grep -rqs "bike-hotspot" /etc/netplan/'
# netplan's supplicant for it (masked here: this board has no radio, scripts/boot-image).
check "netplan rendered it for wlan0's supplicant" sh -c 'grep -qs "ssid=P\"bike-hotspot\"" /run/netplan/wpa-wlan0.conf &&
    test -s /run/systemd/system/netplan-wpa-wlan0.service'
# The service, its configuration the FAT partition's.
for _ in $(seq 60); do systemctl is-active --quiet ridegate && break; sleep 1; done
check "ridegate.service active: $(systemctl show ridegate -p StatusText --value)" systemctl is-active --quiet ridegate
check "runs with /boot/firmware/ridegate.toml" sh -c 'tr "\0" " " < /proc/$(systemctl show ridegate -p MainPID --value)/cmdline | grep -q "/boot/firmware/ridegate.toml"'
# Every command reads the card's file by default (/etc/ridegate/ridegate.toml links there) and says so.
check "commands read the FAT partition's ridegate.toml and say so" \
    sh -c 'ridegate rides list --json 2>&1 >/dev/null | grep -q "configuration: /etc/ridegate/ridegate.toml → /boot/firmware/ridegate.toml"'
# What must outlive a reboot on the read-only root: the SSH host key and the ride, on the state partition.
key=$(ssh-keygen -lf /etc/ssh/keys/ssh_host_ed25519_key.pub 2>/dev/null | awk '{print $2}')
points=$(ridegate rides list --json --state-directory /var/lib/ridegate 2>/dev/null \
    | python3 -c 'import json, sys; print(sum(r["points"] or 0 for r in json.load(sys.stdin)))' 2>/dev/null || echo 0)
say "BOOT_STATE key=$key points=$points"
# The second boot (scripts/boot-image wrote what the first one saw, and a mistyped ridegate.toml).
if [ "$second" = 1 ]; then
    . /boot/firmware/boot-test/first-boot
    # cloud-init marks each per-instance module it runs; the users module's mark is the first boot's.
    booted=$(awk '/^btime/ {print $2}' /proc/stat)
    made=$(stat -c %Y /var/lib/cloud/instance/sem/config_users_groups 2>/dev/null || echo 0)
    check "the seed is not applied again (users module last run $((booted - made)) s before this boot)" \
        test "$made" -gt 0 -a "$made" -lt "$booted"
    check "the SSH host key is the first boot's" test -n "$key" -a "$key" = "${first_key:-}"
    check "the first boot's ride is kept (${first_points:-0} points then, $points now)" test "${first_points:-0}" -gt 0 -a "$points" -ge "${first_points:-0}"
    check "the mistyped file is named in the log, the last good one runs" sh -c 'journalctl -u ridegate --no-pager | grep "the configuration file was refused" | grep -q "mqtt_port"'
    check "commands read the last good copy then, naming the mistake" \
        sh -c 'ridegate rides list --json 2>&1 >/dev/null | grep -A1 "mqtt_port" | grep -q "read instead: the last good copy /var/lib/ridegate/last-good.toml"'
fi
if [ "$second" = 0 ]; then
    kept=/var/lib/ridegate/secrets/intervals-icu.key
    check "the secret dropped on the FAT partition moved: $(stat -c '%U %a' "$kept" 2>&1), gone from the FAT" sh -c "
        test \"\$(stat -c '%U %a' $kept)\" = 'ridegate 600' && grep -q '^boot-test-api-key' $kept &&
        test ! -e /boot/firmware/secrets/intervals-icu.key"
    # The image's own seed as a dd/Etcher user fills it in (scripts/boot-image uncommented it), checked by this
    # image's cloud-init: applying it would need another first boot.
    check "a dd user's filled-in user-data and network-config pass cloud-init's schema" sh -c '
        grep -q "^user:" /boot/firmware/boot-test/dd-user-data && grep -q "^  wifis:" /boot/firmware/boot-test/dd-network-config &&
        cloud-init schema --config-file /boot/firmware/boot-test/dd-user-data &&
        cloud-init schema --schema-type network-config --config-file /boot/firmware/boot-test/dd-network-config' > "$out" 2>&1
fi
say "BOOT_LED $(python3 /boot/firmware/boot-test/sample_led.py "$(cat /run/boot-test-led)" 12)"
say "---- journal of ridegate.service"
journalctl -u ridegate -o short-monotonic --no-pager | tail -25 > "$out"
# When each stage of the boot was reached (seconds since the kernel started), for a slow boot to be read after.
times=""
for unit in systemd-modules-load.service local-fs.target cloud-init-local.service systemd-networkd.service cloud-init-network.service \
        network-online.target ridegate-state.service ridegate.service avahi-daemon.service; do
    at=$(systemctl show -p ActiveEnterTimestampMonotonic --value "$unit" 2>/dev/null)
    times="$times $unit=$(( ${at:-0} / 1000000 ))"
done
say "BOOT_TIMES$times now=$(cut -d' ' -f1 /proc/uptime)"
say "BOOT_GUEST_DONE"
# Once cloud-final, which runs this script, has ended (the per-instance script that makes the root read-only
# comes after it): a transient unit ordered after it, started without waiting for it.
systemd-run --quiet --no-block --property=After=cloud-final.service systemctl poweroff
