#!/bin/bash
# Runs inside the package VM (Debian trixie, systemd as PID 1, from ridegate-package-check.service) and
# does what a user does with the .deb: install it with apt, let it run, plug in a GPS, live through a
# crash, stop it, purge it. Checks only what systemd, udev, dpkg and an MQTT subscriber can see.
# Prints PKG_PASS / PKG_FAIL lines and a PKG_SUMMARY, then powers the VM off.
set -u
PASS=0; FAIL=0
pass() { echo "PKG_PASS $*"; PASS=$((PASS + 1)); }
fail() { echo "PKG_FAIL $*"; FAIL=$((FAIL + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
wait_for() { # seconds pattern file
    local i=0
    while [ $i -lt $(($1 * 10)) ]; do grep -q -- "$2" "$3" 2>/dev/null && return 0; sleep 0.1; i=$((i + 1)); done
    return 1
}
show() { systemctl show ridegate -p "$1" --value; }
finish() {
    echo "---- journal of ridegate.service"; journalctl -u ridegate -o short-monotonic --no-pager | tail -40
    echo "---- mqtt (status and last gps)"; grep -E '/status ' /tmp/mqtt.log; grep '/gps ' /tmp/mqtt.log | tail -1
    echo "PKG_SUMMARY pass=$PASS fail=$FAIL"
    systemctl poweroff --no-block
    exit 0
}
trap finish EXIT
echo "PKG_START kernel=$(uname -r) systemd=$(systemctl --version | head -1 | cut -d' ' -f2)"
T=ridegate/$(hostname)

systemctl is-active --quiet mosquitto || fail "mosquitto is not running in the VM"
mosquitto_sub -h localhost -v -t 'ridegate/#' > /tmp/mqtt.log 2>&1 &
deb=$(ls /pkg/ridegate_*.deb)

# Install: postinst creates the user, enables the unit and starts it; with Type=notify `systemctl restart`
# returns only after READY=1, so "active" right after apt means the daemon said it is up.
t=$(now)
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" > /tmp/apt.log 2>&1; then
    pass "apt-get install $(basename "$deb") in $(since "$t") s"
else
    fail "apt-get install"; tail -20 /tmp/apt.log
fi
dpkg -L ridegate | sort > /tmp/ridegate-files
check "unit enabled" test "$(systemctl is-enabled ridegate)" = enabled
check "unit active after install (READY=1), status: $(show StatusText)" systemctl is-active --quiet ridegate
pid=$(show MainPID); user=$(ps -o user= -p "$pid"); groups=$(ps -o supgrp= -p "$pid")
check "runs as $user with groups $groups" bash -c "[ '$user' = ridegate ] && echo '$groups' | grep -qw dialout && echo '$groups' | grep -qw gpio"
# CAP_NET_ADMIN (12) and CAP_NET_RAW (13), nothing else.
caps=$(grep CapEff "/proc/$pid/status" | cut -f2)
check "effective capabilities $caps (net_admin, net_raw)" test "$caps" = 0000000000003000
check "spool directory /var/lib/ridegate owned by ridegate" test "$(stat -c %U /var/lib/ridegate)" = ridegate

verify=$(systemd-analyze verify /usr/lib/systemd/system/ridegate.service 2>&1); status=$?
[ -n "$verify" ] && echo "$verify"
check "systemd-analyze verify ridegate.service: exit $status, $(echo -n "$verify" | grep -c .) messages" \
    test "$status" -eq 0 -a -z "$verify"
exposure=$(systemd-analyze security ridegate.service --no-pager 2>&1 | grep -o 'Overall exposure level for ridegate.service: .*')
check "systemd-analyze security: ${exposure:-no verdict} (at most 2.0)" \
    systemd-analyze security ridegate.service --threshold=20 --no-pager --quiet
udev=$(udevadm verify /usr/lib/udev/rules.d/60-ridegate.rules 2>&1); status=$?
check "udevadm verify 60-ridegate.rules: exit $status ($(echo "$udev" | tr -s '\n' ' '))" test "$status" -eq 0

check "status online published" wait_for 20 "^$T/status online" /tmp/mqtt.log
check "health published" wait_for 40 "^$T/health {" /tmp/mqtt.log
# Retained: a subscriber that arrives now still gets it.
check "health retained" bash -c "mosquitto_sub -h localhost -t '$T/health' --retained-only -C 1 -W 5 | grep -q '\"uptime_s\"'"

# A GPS plugged in while the daemon runs: a udev rule gives the VM's second UART the name the packaged
# rules give USB receivers; the daemon must find it without a restart (and the unit's DeviceAllow must let
# it open a ttyS device).
echo 'KERNEL=="ttyS1", SYMLINK+="ridegate-gps", GROUP="dialout", MODE="0660", TAG+="systemd"' > /etc/udev/rules.d/61-vm-gps.rules
udevadm control --reload && udevadm trigger --action=add --sysname-match=ttyS1 && udevadm settle
check "udev made /dev/ridegate-gps -> $(readlink /dev/ridegate-gps)" test -c /dev/ridegate-gps
t=$(now)
if wait_for 60 "^$T/gps {.*\"lat\":[-0-9]" /tmp/mqtt.log; then pass "GPS fix published $(since "$t") s after the GPS appeared"
else fail "no GPS fix published within 60 s of the GPS appearing"; fi
check "no restarts so far (NRestarts=$(show NRestarts))" test "$(show NRestarts)" = 0

# DevicePolicy=closed in force: from inside the unit's cgroup (where its device filter applies) a block
# device cannot be opened, while the same read works outside it.
cgroup=/sys/fs/cgroup$(show ControlGroup)
inside=$(bash -c "echo \$\$ > '$cgroup/cgroup.procs' && head -c 1 /dev/vda > /dev/null 2>&1 && echo opened || echo refused")
outside=$(head -c 1 /dev/vda > /dev/null 2>&1 && echo opened || echo refused)
check "DevicePolicy=closed: /dev/vda $inside inside the unit's cgroup, $outside outside" test "$inside" = refused -a "$outside" = opened

# A crash: Restart=on-failure brings it back, ExecStopPost runs in between.
old=$(show MainPID); kill -KILL "$old"; t=$(now)
for _ in $(seq 100); do pid=$(show MainPID); [ "$pid" != 0 ] && [ "$pid" != "$old" ] && systemctl is-active --quiet ridegate && break; sleep 0.1; done
check "restarted after SIGKILL in $(since "$t") s (NRestarts=$(show NRestarts)), active again" \
    bash -c "[ '$(show NRestarts)' = 1 ] && [ '$(show MainPID)' != '$old' ] && systemctl is-active --quiet ridegate"

# Orderly stop: exit 0, "offline" retained, well inside TimeoutStopSec.
t=$(now); systemctl stop ridegate; took=$(since "$t")
check "systemctl stop in $took s: Result=$(show Result), exit status $(show ExecMainStatus)" \
    test "$(show Result)" = success -a "$(show ExecMainStatus)" = 0
check "last status is offline" bash -c "sleep 0.5; grep '^$T/status ' /tmp/mqtt.log | tail -1 | grep -q offline"
check "journal says the gateway stopped" bash -c 'journalctl -u ridegate -o cat --no-pager | grep -q "gateway: stopped"'

# Purge: nothing of the package, its user or its state is left.
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q ridegate > /tmp/apt-purge.log 2>&1 || { fail "apt-get purge"; tail -20 /tmp/apt-purge.log; }
left=$(while read -r f; do [ -f "$f" ] || [ -L "$f" ] && echo "$f"; done < /tmp/ridegate-files
       for p in /etc/ridegate /var/lib/ridegate /etc/systemd/system/multi-user.target.wants/ridegate.service; do [ -e "$p" ] && echo "$p"; done
       getent passwd ridegate; getent group ridegate)
check "purge leaves nothing behind${left:+: $left}" test -z "$left"
check "unit gone from systemd (LoadState=$(show LoadState))" test "$(show LoadState)" = not-found
