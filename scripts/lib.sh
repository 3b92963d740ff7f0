# Shared helpers for ridegate's scripts. Sourced, not run.

# Installs the Debian packages that are missing; quiet when nothing is.
# Usage: ensure_apt_packages pkg...
ensure_apt_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing: ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The packages ridegate builds against, on Debian 12 and Raspberry Pi OS trixie alike.
RIDEGATE_BUILD_PACKAGES=(pkg-config libbluetooth-dev libgpiod-dev libmosquitto-dev libsqlite3-dev libcurl4-openssl-dev)
# What the demo starts: a private broker and a subscriber that shows the messages.
RIDEGATE_RUNTIME_PACKAGES=(mosquitto mosquitto-clients)
# What only the tests start or read with: TLS certificates, gpsd, chronyd (run with -x so the host clock is left
# alone), tmux, a RabbitMQ cluster (its nodes private to the test: own ports, cookie and port mapper), and the
# independent readers the ride files are checked with.
RIDEGATE_TEST_PACKAGES=(openssl python3-gpxpy gpsbabel python3-venv libxml2-utils python3-lxml python3-dateutil python3-jinja2 python3-jsonschema python3-yaml xz-utils gpsd gpsd-clients chrony tmux rabbitmq-server)

# swift build with its progress on one line (a first build takes minutes and would otherwise look hung), and
# every error and warning in full. Usage: build_with_progress [swift build arguments...]
build_with_progress() {
    local log status=0
    log=$(mktemp)
    swift build "$@" 2>&1 | tee "$log" | awk -v tty="$([ -t 2 ] && echo 1)" '
        /^\[[0-9]+\/[0-9]+\]/ {
            gsub(/[][]/, "", $1); split($1, n, "/"); n[1] += 0; n[2] += 0
            if (tty) { printf "\r==> building: step %d of %d ", n[1], n[2] > "/dev/stderr" }
            else if (n[2] > 20 && (n[1] == n[2] || n[1] >= shown + 40)) { shown = n[1]; printf "==> building: step %d of %d\n", n[1], n[2] > "/dev/stderr" }
            next
        }
        # An error in a macro expansion names its file on a note line of its own.
        /error:|warning: |originates here/ && !/^warning: .main./ { if (tty) printf "\n" > "/dev/stderr"; print > "/dev/stderr" }
        /Build complete|Compiling|Linking/ { next }
        END { if (tty) printf "\n" > "/dev/stderr" }' || true
    grep -q "error:" "$log" && status=1
    rm -f "$log"
    [ "$status" -eq 0 ] || echo "build failed" >&2
    return "$status"
}

# A TCP port on loopback that nothing listens on now (for a private mosquitto).
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A Swift SDK (SwiftPM's artifact bundle, "trixie-arm64") for cross-compiling against the arm64 Debian root $1: its
# headers, libraries and Swift runtime, linked with the toolchain's own lld. Prints the folder to pass as
# --swift-sdks-path.
cross_sdk() {
    local sysroot=$1 dir=$PWD/.build-cross-sdk
    local bundle=$dir/trixie-arm64.artifactbundle
    mkdir -p "$bundle/trixie-arm64"
    cat > "$bundle/info.json" <<JSON
{"schemaVersion": "1.0", "artifacts": {"trixie-arm64": {"type": "swiftSDK", "version": "1", "variants": [{"path": "trixie-arm64"}]}}}
JSON
    cat > "$bundle/trixie-arm64/swift-sdk.json" <<JSON
{"schemaVersion": "4.0", "targetTriples": {"aarch64-unknown-linux-gnu": {
  "sdkRootPath": "$sysroot",
  "swiftResourcesPath": "$sysroot/usr/libexec/swift/lib/swift",
  "swiftStaticResourcesPath": "$sysroot/usr/libexec/swift/lib/swift_static",
  "toolsetPaths": ["toolset.json"]}}}
JSON
    cat > "$bundle/trixie-arm64/toolset.json" <<JSON
{"schemaVersion": "1.0", "swiftCompiler": {"extraCLIOptions": ["-use-ld=lld"]}}
JSON
    echo "$dir"
}

# Swift: this machine's toolchain if present, else apt's swiftlang (Raspberry Pi OS trixie, Debian 13).
ensure_swift() {
    command -v swift >/dev/null 2>&1 && return 0
    ensure_apt_packages swiftlang git libstdc++-14-dev
}

# The Debian mirror this machine's apt already uses, so scripts name no host of their own.
debian_mirror() {
    if [ -n "${RIDEGATE_DEBIAN_MIRROR:-}" ]; then echo "$RIDEGATE_DEBIAN_MIRROR"; return; fi
    local uri
    uri=$(grep -hoE '^(URIs:[[:space:]]*|deb[[:space:]]+)[a-z]+://[^[:space:]]+/debian/?([[:space:]]|$)' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
          | head -n1 | grep -oE '[a-z]+://[^[:space:]]+')
    [ -n "$uri" ] || { echo "error: no Debian mirror found in /etc/apt; set RIDEGATE_DEBIAN_MIRROR" >&2; return 1; }
    echo "$uri"
}

# The ride-file readers from PyPI (pinned): Garmin's own FIT decoder and python-tcxparser, in a virtualenv of
# their own (seeing Debian's python3-lxml, which tcxparser needs). Outside the repository, so a fresh clone
# and the Pi chroot each make theirs once.
RIDEGATE_FIT_SDK=${RIDEGATE_FIT_SDK:-/opt/ridegate-test/fit-sdk}
ensure_fit_sdk() {
    "$RIDEGATE_FIT_SDK/bin/python" -c "import garmin_fit_sdk, tcxparser" 2>/dev/null && return 0
    echo "==> installing garmin-fit-sdk and python-tcxparser into $RIDEGATE_FIT_SDK" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    # RIDEGATE_WHEELS: a folder the wheels were downloaded into on the host (the Pi chroot cannot reach PyPI
    # through the host's TLS interception; both wheels are pure Python).
    local from=()
    [ -n "${RIDEGATE_WHEELS:-}" ] && [ -d "$RIDEGATE_WHEELS" ] && from=(--no-index --find-links "$RIDEGATE_WHEELS")
    $sudo /usr/bin/python3 -m venv --clear --system-site-packages "$RIDEGATE_FIT_SDK" \
        && $sudo "$RIDEGATE_FIT_SDK/bin/pip" install -q --no-deps "${from[@]}" "garmin-fit-sdk==$RIDEGATE_FIT_SDK_VERSION" \
            "python-tcxparser==$RIDEGATE_TCXPARSER_VERSION" >&2
}
RIDEGATE_TCXPARSER_VERSION=2.4.0
RIDEGATE_FIT_SDK_VERSION=21.218.0

# The closing line of a test run about the reference corpus: how many cases of each corpus ran (what the tests
# printed as "reference corpus: NAME: N cases"), or how many tests were skipped without it, and which.
# Usage: summarize_corpus OUTPUT_FILE CORPUS_DIR
summarize_corpus() {
    local counts skipped names
    counts=$(grep -aoE '^reference corpus: [^:]+: [0-9]+ cases' "$1" | sort -u | sed -E 's/^reference corpus: ([^:]+): ([0-9]+) cases/\1 \2/' \
             | paste -sd, - | sed 's/,/, /g' || true)
    skipped=$(grep -aE 'skipped: "reference corpus not found' "$1" | grep -aoE 'Test "[^"]+"|Test [A-Za-z0-9_]+\([^)]*\)' \
              | sed -E 's/^Test "?//; s/"$//' | sort -u || true)
    if [ -n "$skipped" ]; then
        names=$(echo "$skipped" | paste -sd ';' - | sed 's/;/; /g')
        echo "==> reference corpus not found at $2 (set RIDEGATE_FIXTURES): $(echo "$skipped" | wc -l) tests skipped: $names"
    elif [ -n "$counts" ]; then
        echo "==> reference corpus at $2: $counts"
    fi
}

# Bumble, pinned (e2e/sensors.py patches this version's internals), into a venv at /opt/bumble in the bookworm
# root $1 (which has python3 and python3-venv). Wheels come from PyPI on the host into $2 (the guest has no
# network) and install offline. Once per root.
install_bumble() {
    local root=$1 wheels=$2
    [ -x "$root/opt/bumble/bin/python" ] && return 0
    echo "==> Bumble 0.0.236 into $root" >&2
    python3 -m pip download -q -d "$wheels" --only-binary=:all: --python-version 3.11 --implementation cp \
        --platform manylinux_2_36_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any "bumble==0.0.236"
    rm -rf "$root/tmp/wheels" && cp -r "$wheels" "$root/tmp/wheels"
    chroot "$root" python3 -m venv /opt/bumble
    chroot "$root" /opt/bumble/bin/pip install -q --no-index --find-links /tmp/wheels "bumble==0.0.236"
    rm -rf "$root/tmp/wheels"
}
