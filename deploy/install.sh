#!/usr/bin/env bash
# Installs ridegate on a Raspberry Pi (Raspberry Pi OS trixie) from this source tree: build dependencies,
# a release build, the binary, the systemd unit, the udev rules, a config (never overwriting yours), the
# `ridegate` system user, and the running service. Safe to run again (idempotent).
#
#   sudo deploy/install.sh              install or upgrade
#   sudo deploy/install.sh --uninstall  remove binary, unit, rules and user; keep /etc/ridegate and /var/lib/ridegate
#   sudo deploy/install.sh --purge      the same, and remove the config and the spool too
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/lib.sh"

PREFIX=${PREFIX:-/usr}
UNIT=/etc/systemd/system/ridegate.service
RULES=/etc/udev/rules.d/60-ridegate.rules
have_systemd() { [ -d /run/systemd/system ]; }

[ "$(id -u)" -eq 0 ] || { echo "error: run as root: sudo $0 $*" >&2; exit 1; }

uninstall() {
    if have_systemd; then
        systemctl disable --now ridegate.service 2>/dev/null || true
    fi
    rm -f "$PREFIX/bin/ridegate" "$UNIT" "$RULES"
    rm -rf "$PREFIX/share/ridegate"
    if have_systemd; then systemctl daemon-reload; fi
    command -v udevadm >/dev/null && udevadm control --reload 2>/dev/null || true
    if id ridegate >/dev/null 2>&1; then userdel ridegate 2>/dev/null || true; fi
    if [ "${1:-}" = purge ]; then
        rm -rf /etc/ridegate /var/lib/ridegate
        echo "ridegate removed, with its configuration and spool"
    else
        echo "ridegate removed; /etc/ridegate and /var/lib/ridegate are kept (--purge removes them)"
    fi
}

case "${1:-}" in
    --uninstall) uninstall; exit 0 ;;
    --purge) uninstall purge; exit 0 ;;
    "") ;;
    *) echo "usage: $0 [--uninstall|--purge]" >&2; exit 2 ;;
esac

echo "==> build dependencies" >&2
ensure_apt_packages "${RIDEGATE_BUILD_PACKAGES[@]}" bluez
ensure_swift

echo "==> release build (a few minutes on a Pi 4; longer on a Zero 2 W)" >&2
cd "$here"
scratch=()
[ -n "${RIDEGATE_SCRATCH:-}" ] && scratch=(--scratch-path "$RIDEGATE_SCRATCH")
log=$(mktemp)
if ! swift build -c release --static-swift-stdlib --product ridegate "${scratch[@]}" > "$log" 2>&1; then
    grep -E "error:" "$log" | head -20 >&2
    echo "error: the build failed (whole log: $log); nothing was installed" >&2
    exit 1
fi
rm -f "$log"
binary=$(swift build -c release --static-swift-stdlib --product ridegate "${scratch[@]}" --show-bin-path)/ridegate

echo "==> installing" >&2
install -D -m 0755 "$binary" "$PREFIX/bin/ridegate"
install -D -m 0644 demo/ride.nmea "$PREFIX/share/ridegate/demo-ride.nmea"
install -D -m 0644 deploy/ridegate.toml.example "$PREFIX/share/ridegate/ridegate.toml.example"
install -D -m 0644 deploy/ridegate.service "$UNIT"
install -D -m 0644 udev/60-ridegate.rules "$RULES"
if [ ! -e /etc/ridegate/ridegate.toml ]; then
    install -D -m 0644 deploy/ridegate.toml.example /etc/ridegate/ridegate.toml
    echo "    wrote /etc/ridegate/ridegate.toml (edit it: docs/config.md)" >&2
else
    echo "    kept your /etc/ridegate/ridegate.toml" >&2
fi

getent group gpio >/dev/null || groupadd --system gpio
getent group dialout >/dev/null || groupadd --system dialout
if ! id ridegate >/dev/null 2>&1; then
    useradd --system --home-dir /var/lib/ridegate --no-create-home --shell /usr/sbin/nologin --user-group ridegate
fi
usermod -a -G dialout,gpio ridegate

command -v udevadm >/dev/null && { udevadm control --reload; udevadm trigger --subsystem-match=tty --subsystem-match=gpio; } || true
"$PREFIX/bin/ridegate" run --check-config --config /etc/ridegate/ridegate.toml
if have_systemd; then
    systemctl daemon-reload
    systemctl enable ridegate.service
    systemctl restart ridegate.service
    echo "==> running: systemctl status ridegate; journalctl -u ridegate -f; ridegate doctor" >&2
else
    echo "==> installed (no systemd here: start it with ridegate run)" >&2
fi
