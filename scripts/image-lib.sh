# The steps of scripts/build-image, sourced by it (and by scripts/boot-image, which reads images).

IMAGE_BOOT_MB=256   # the FAT partition: firmware, kernel, initrd, config, seed
IMAGE_STATE_MB=64   # the state partition as shipped; grown to the card at first boot
IMAGE_RIDER_PACKAGES="avahi-daemon nano"  # HOSTNAME.local and an editor (docs/install.md), on top of the root

# An arm64 trixie root with the image's packages, made once per package list and deploy/image/ ($1: where,
# $2: the packages). The .debs of ridegate's own libraries are kept beside it (for --base).
debian_root() {
    local dir=$1 packages=$2
    [ -f "$dir/.ridegate-complete" ] && return 0
    stamp "making the image's root (mmdebstrap, arm64 under qemu-user)"
    rm -rf "$dir" "$dir.tmp"
    # No service may start inside the build (the chroot shares this machine's kernel).
    mmdebstrap --mode=root --arch=arm64 --variant=apt --components="main non-free-firmware" --include="$packages" \
        --essential-hook='printf "#!/bin/sh\nexit 101\n" > "$1/usr/sbin/policy-rc.d"; chmod 755 "$1/usr/sbin/policy-rc.d"' \
        trixie "$dir.tmp" "$(debian_mirror)" >"$dir.log" 2>&1 || { tail -20 "$dir.log" >&2; rm -rf "$dir.tmp"; return 1; }
    touch "$dir.tmp/.ridegate-complete"
    mv "$dir.tmp" "$dir"
}

# Mounts what a chroot needs to run maintainer scripts, until chroot_done.
chroot_ready() {
    mount -t proc proc "$1/proc"
    mount --bind /sys "$1/sys"
    mount --bind /dev "$1/dev"
}
chroot_done() {
    local m
    for m in dev sys proc; do mountpoint -q "$1/$m" && umount -l "$1/$m"; done
    return 0
}

# ridegate's package and the image's configuration, into root $1 ($2: the package).
configure_root() {
    local r=$1 deb=$2 img=$here/deploy/image
    chroot_ready "$r"
    cp "$deb" "$r/tmp/ridegate.deb"
    chroot "$r" dpkg -i /tmp/ridegate.deb >&2
    rm "$r/tmp/ridegate.deb"
    # What the rider's tools need on top of the root (kept by its package list: adding them there would make
    # a new root, half an hour under qemu-user): avahi for HOSTNAME.local, an editor.
    rm -rf "$r/tmp/image-debs"
    fetch_debs "$r/tmp/image-debs" --root "$r" $IMAGE_RIDER_PACKAGES
    [ -z "$(ls "$r/tmp/image-debs")" ] || chroot "$r" sh -c 'dpkg -i /tmp/image-debs/*.deb' >&2
    rm -rf "$r/tmp/image-debs"
    install -m 0644 "$img/raspi-firmware" "$r/etc/default/raspi-firmware"
    install -m 0644 "$img/raspi-extra-cmdline" "$r/etc/default/raspi-extra-cmdline"
    install -m 0644 "$img/fstab" "$r/etc/fstab"
    install -D -m 0644 "$img/cloud.cfg" "$r/etc/cloud/cloud.cfg.d/90-ridegate.cfg"
    install -D -m 0644 "$img/sshd.conf" "$r/etc/ssh/sshd_config.d/ridegate-image.conf"
    install -D -m 0644 "$img/chrony.conf" "$r/etc/chrony/conf.d/ridegate.conf"
    install -D -m 0755 "$img/image-state" "$r/usr/lib/ridegate/image-state"
    install -D -m 0755 "$img/strava-from-card" "$r/usr/lib/ridegate/strava-from-card"
    install -D -m 0644 "$img/systemd/ridegate-state.service" "$r/etc/systemd/system/ridegate-state.service"
    install -D -m 0644 "$img/systemd/ridegate-strava.service" "$r/etc/systemd/system/ridegate-strava.service"
    install -D -m 0644 "$img/systemd/ridegate.service.d/image.conf" "$r/etc/systemd/system/ridegate.service.d/image.conf"
    install -D -m 0644 "$img/systemd/cloud-init-local.service.d/ridegate.conf" "$r/etc/systemd/system/cloud-init-local.service.d/ridegate.conf"
    install -D -m 0755 "$img/read-only-root" "$r/var/lib/cloud/scripts/per-instance/ridegate-read-only-root"
    # Host keys made here would be the same on every card: each card makes its own at first boot.
    rm -f "$r"/etc/ssh/ssh_host_*
    mkdir -p "$r/var/lib/ridegate-state" "$r/var/lib/ridegate" "$r/etc/ssh/keys" "$r/boot/firmware"
    echo ridegate > "$r/etc/hostname"
    chroot "$r" systemctl enable ridegate.service ridegate-state.service ridegate-strava.service ssh.service chrony.service >/dev/null 2>&1
    # config.txt and cmdline.txt again, from the settings above (the kernel's install wrote them with the defaults;
    # both enable the UART, enable_uart=1, with or without them).
    local kver
    kver=$(ls "$r/lib/modules" | sort -V | tail -1)
    chroot "$r" env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware "$kver" >&2
    # The first boot's root is writable (its cloud-init seed applied and kept); read-only-root then adds the overlay.
    sed -i 's/ *overlayroot=[^ ]*//' "$r/boot/firmware/cmdline.txt"
    image_config "$r/boot/firmware/ridegate.toml"
    # Every command reads the card's file by default, as the daemon does (docs/install.md).
    ln -sfn /boot/firmware/ridegate.toml "$r/etc/ridegate/ridegate.toml"
    install -m 0644 "$img"/seed/* "$r/boot/firmware/"
    chroot "$r" apt-get clean
    rm -rf "$r"/var/lib/apt/lists/* "$r/usr/sbin/policy-rc.d"
    : > "$r/etc/machine-id"
    chroot_done "$r"
}

# The configuration a new card starts with ($1: where), from deploy/ridegate.toml.example: the LED of
# docs/hardware.md on GPIO17, the GPS time for chrony.
image_config() {
    sed -e 's|^mode = "off" *#|mode = "single"              #|' \
        -e 's|^# line_name = "GPIO17" *#|line_name = "GPIO17"          #|' \
        -e 's|^# chrony_socket = |chrony_socket = |' \
        -e '1a# On the image: this file is on the card'"'"'s FAT partition (edit it from a laptop); read at boot.' \
        "$here/deploy/ridegate.toml.example" > "$1"
}

# The state partition's file system, in $1/state.img: ridegate's state directory (owned by its user in root $2)
# holding the first last good configuration ($3), and a folder for the SSH host keys.
state_partition() {
    local w=$1 r=$2 config=$3 uid gid
    uid=$(awk -F: '$1 == "ridegate" {print $3}' "$r/etc/passwd")
    gid=$(awk -F: '$1 == "ridegate" {print $4}' "$r/etc/passwd")
    mkdir -p "$w/state/ridegate" "$w/state/ssh"
    # The shipped configuration is the first last good one: a card whose file is mistyped before its first boot
    # still rides.
    install -m 0600 "$config" "$w/state/ridegate/last-good.toml"
    chown -R "$uid:$gid" "$w/state/ridegate"
    chmod 0700 "$w/state/ridegate" "$w/state/ssh"
    mkfs.ext4 -q -L ridegate-state -d "$w/state" "$w/state.img" "${IMAGE_STATE_MB}M" >/dev/null
}

# The partitions of $1/root, laid out in image $2: FAT (from /boot/firmware), the root, the state partition
# (unless $3 is "two": the stand-in for a Raspberry Pi OS image, FAT and root only).
assemble_image() {
    local w=$1 out=$2 r=$1/root layout=${3:-three}
    stamp "making the partitions"
    mkdir -p "$w/boot"
    mv "$r"/boot/firmware/* "$w/boot/"
    mkfs.vfat -F 32 -n RASPIFIRM -C "$w/boot.img" $((IMAGE_BOOT_MB * 1024)) >/dev/null
    mcopy -s -i "$w/boot.img" "$w"/boot/* ::/
    [ "$layout" = two ] || state_partition "$w" "$r" "$w/boot/ridegate.toml"
    local root_mb
    root_mb=$(( $(du -sm "$r" | cut -f1) * 6 / 5 + 128 ))
    mkfs.ext4 -q -L RASPIROOT -d "$r" "$w/root.img" "${root_mb}M" >/dev/null
    local boot_start=4 root_start=$((4 + IMAGE_BOOT_MB)) state_start=$((4 + IMAGE_BOOT_MB + root_mb))
    local state_mb=$IMAGE_STATE_MB state_line="start=${state_start}MiB, size=${IMAGE_STATE_MB}MiB, type=83"
    [ "$layout" = three ] || { state_mb=0; state_line=; }
    truncate -s "$(( state_start + state_mb ))M" "$out"
    sfdisk -q "$out" <<TABLE
label: dos
start=${boot_start}MiB, size=${IMAGE_BOOT_MB}MiB, type=c
start=${root_start}MiB, size=${root_mb}MiB, type=83
$state_line
TABLE
    dd if="$w/boot.img" of="$out" bs=1M seek=$boot_start conv=notrunc,sparse status=none
    dd if="$w/root.img" of="$out" bs=1M seek=$root_start conv=notrunc,sparse status=none
    [ "$layout" = two ] || dd if="$w/state.img" of="$out" bs=1M seek=$state_start conv=notrunc,sparse status=none
    rm -f "$w/boot.img" "$w/root.img" "$w/state.img"
}

# The packages package $1 depends on, one per line, without versions.
deb_depends() { dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/(.*)//; s/ //g' | grep -v '^$'; }

# The MBR types of image $1's partitions, space-separated ("c 83 83").
partition_types() { sfdisk -J "$1" | python3 -c "import json,sys; print(' '.join(p['type'] for p in json.load(sys.stdin)['partitiontable']['partitions']))"; }

# Byte offset and size of partition $2 of image $1.
partition_offset() { sfdisk -J "$1" | python3 -c "import json,sys; p=json.load(sys.stdin)['partitiontable']; print(p['partitions'][$2-1]['start']*p.get('sectorsize',512))"; }
partition_size() { sfdisk -J "$1" | python3 -c "import json,sys; p=json.load(sys.stdin)['partitiontable']; print(p['partitions'][$2-1]['size']*p.get('sectorsize',512))"; }

# Raspberry Pi Imager's manifests for the image ($1: folder of the .img.xz, $2: name, $3: the raw image, $4: version):
# NAME.rpi-imager-manifest for the files in $1 (file:// addresses: Imager opens it and offers its customisation form),
# and os_list.json for whoever publishes the image and its icon at $RIDEGATE_IMAGE_URL (default: the release's).
imager_manifests() {
    local dir=$1 name=$2 raw=$3 version=$4
    local base=${RIDEGATE_IMAGE_URL:-https://github.com/ridegate/ridegate/releases/download/v$version}
    cp "$here/deploy/image/ridegate-icon.svg" "$dir/"
    local args=(--xz "$dir/$name.img.xz" --raw "$raw" --version "$version" --icon "$dir/ridegate-icon.svg")
    # RIDEGATE_HOST_DIST: where the computer that opens the manifest has dist/, when that is not here (a container).
    local here_or_host=(--local)
    [ -z "${RIDEGATE_HOST_DIST:-}" ] || here_or_host=(--local-dir "$RIDEGATE_HOST_DIST")
    "$here/scripts/imager-manifest" "${args[@]}" "${here_or_host[@]}" > "$dir/$name.rpi-imager-manifest"
    "$here/scripts/imager-manifest" "${args[@]}" --url-base "$base" > "$dir/os_list.json"
}

# Downloads the arm64 trixie packages named ($2...) into $1 from the Debian mirror, checked against the archive's
# index (for --base: ridegate's libraries, installed into an image without booting it). With `--root R` first,
# also every package they depend on that root R's dpkg database lacks (the first alternative the index has),
# leaving out those R has: what `dpkg -i` in R then needs, resolved here without apt or emulation.
fetch_debs() {
    local dir=$1 root=; shift
    if [ "${1:-}" = --root ]; then root=$2; shift 2; fi
    mkdir -p "$dir"
    python3 - "$(debian_mirror)" "$dir" "$root" "$@" <<'PY'
import hashlib, lzma, os, sys, urllib.request
mirror, folder, root, wanted = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], set(sys.argv[4:])
index = lzma.decompress(urllib.request.urlopen(f"{mirror}/dists/trixie/main/binary-arm64/Packages.xz").read()).decode()


def stanzas(text):
    for stanza in text.split("\n\n"):
        yield dict(line.split(": ", 1) for line in stanza.splitlines() if ": " in line and not line.startswith(" "))


def names(field):
    """Package names of a Depends or Provides field, one list of alternatives per clause."""
    return [[alt.strip().split(" ")[0].split(":")[0] for alt in clause.split("|") if alt.strip()]
            for clause in field.split(",") if clause.strip()]


available = {f["Package"]: f for f in stanzas(index) if "Package" in f}
if root:
    have = set()
    for f in stanzas(open(os.path.join(root, "var/lib/dpkg/status")).read()):
        if "install ok installed" in f.get("Status", ""):
            have.add(f["Package"])
            have.update(n for clause in names(f.get("Provides", "")) for n in clause)
    providers = {}
    for f in available.values():
        for clause in names(f.get("Provides", "")):
            providers.setdefault(clause[0], f["Package"])
    chosen, todo = set(), list(wanted)
    while todo:
        name = todo.pop()
        if name in have or name in chosen:
            continue
        name = name if name in available else providers.get(name, name)
        if name not in available:
            sys.exit(f"error: {name} is neither in trixie's arm64 index nor installed in {root}")
        chosen.add(name)
        for clause in names(available[name].get("Pre-Depends", "")) + names(available[name].get("Depends", "")):
            if not any(n in have or n in chosen for n in clause):
                todo.append(next((n for n in clause if n in available or n in providers), clause[0]))
    wanted = chosen
missing = wanted - available.keys()
if missing:
    sys.exit(f"error: not in trixie's arm64 index: {' '.join(sorted(missing))}")
for name in sorted(wanted):
    fields = available[name]
    data = urllib.request.urlopen(f"{mirror}/{fields['Filename']}").read()
    if hashlib.sha256(data).hexdigest() != fields["SHA256"]:
        sys.exit(f"error: {fields['Filename']} does not match the archive's SHA256")
    with open(os.path.join(folder, os.path.basename(fields["Filename"])), "wb") as f:
        f.write(data)
PY
}

# A Raspberry Pi OS Lite image ($1, .img.xz or .img) made into ridegate's ($2) without booting it ($3: the
# package): ridegate and its libraries installed, the service enabled with the FAT partition's configuration,
# no console on the UART, and a state partition added after the root (Raspberry Pi OS keeps its own SSH host
# keys and cloud-init setup; its root stays writable: `raspi-config` can make it read-only).
customise_base() {
    local base=$1 out=$2 deb=$3 w
    w=$(dirname "$out")
    case $base in *.xz) xz -dc "$base" > "$out" ;; *) cp --sparse=always "$base" "$out" ;; esac
    local types
    types=$(partition_types "$out")
    [ "$types" = "c 83" ] || { echo "error: $base has partitions of types '$types'; expected Raspberry Pi OS's two (FAT 'c', Linux '83')" >&2; return 1; }
    local end_mb=$(( ($(partition_offset "$out" 2) + $(partition_size "$out" 2) + 1048575) / 1048576 ))
    truncate -s "$(( end_mb + IMAGE_STATE_MB ))M" "$out"
    echo "start=${end_mb}MiB, size=${IMAGE_STATE_MB}MiB, type=83" | sfdisk -q --append "$out"
    local runtime
    runtime=$(deb_depends "$deb")
    fetch_debs "$w/debs" $runtime
    local r=$w/mnt
    mkdir -p "$r"
    # By offset: no partition device nodes needed (none appear in a container without udev).
    mount -o "loop,offset=$(partition_offset "$out" 2),sizelimit=$(partition_size "$out" 2)" "$out" "$r"
    chroot_ready "$r"
    mkdir -p "$r/tmp/ridegate-debs" && cp "$w"/debs/*.deb "$deb" "$r/tmp/ridegate-debs/"
    # Only the libraries the image lacks (its own newer ones stay).
    local d
    for d in "$r"/tmp/ridegate-debs/*.deb; do
        chroot "$r" dpkg-query -W -f '${Status}' "$(dpkg-deb -f "$d" Package)" 2>/dev/null | grep -q 'install ok installed' && rm "$d"
    done
    chroot "$r" sh -c 'dpkg -i /tmp/ridegate-debs/*.deb' >&2
    rm -rf "$r/tmp/ridegate-debs"
    local img=$here/deploy/image
    sed -n '/ridegate-state\|ridegate /p' "$img/fstab" | grep -v '/etc/ssh/keys' >> "$r/etc/fstab"
    install -D -m 0755 "$img/image-state" "$r/usr/lib/ridegate/image-state"
    install -D -m 0755 "$img/strava-from-card" "$r/usr/lib/ridegate/strava-from-card"
    install -D -m 0644 "$img/systemd/ridegate-state.service" "$r/etc/systemd/system/ridegate-state.service"
    install -D -m 0644 "$img/systemd/ridegate-strava.service" "$r/etc/systemd/system/ridegate-strava.service"
    install -D -m 0644 "$img/systemd/ridegate.service.d/image.conf" "$r/etc/systemd/system/ridegate.service.d/image.conf"
    mkdir -p "$r/var/lib/ridegate-state" "$r/var/lib/ridegate" "$r/etc/ssh/keys"
    # Every command reads the card's file by default, as the daemon does (docs/install.md).
    ln -sfn /boot/firmware/ridegate.toml "$r/etc/ridegate/ridegate.toml"
    chroot "$r" systemctl enable ridegate.service ridegate-state.service ridegate-strava.service >/dev/null 2>&1
    state_partition "$w" "$r" "$(fat_edit "$out" "$w/fat")"
    chroot_done "$r"
    umount "$r"
    dd if="$w/state.img" of="$out" bs=1M seek="$end_mb" conv=notrunc,sparse status=none
    rm -f "$w/state.img"
}

# The FAT partition of image $1 edited with mtools (no mount: not every kernel here has vfat): ridegate.toml,
# no console on the UART in cmdline.txt, the UART on in config.txt. $2: a scratch folder. Prints the config's path.
fat_edit() {
    local out=$1 dir=$2 at
    at="$out@@$(partition_offset "$out" 1)"
    mkdir -p "$dir"
    image_config "$dir/ridegate.toml"
    mcopy -n -i "$at" ::/cmdline.txt "$dir/cmdline.txt"
    mcopy -n -i "$at" ::/config.txt "$dir/config.txt"
    sed -i 's/ *console=serial0,[0-9]*//; s/ *console=ttyS[0-9],[0-9]*//; s/ *console=ttyAMA[0-9],[0-9]*//' "$dir/cmdline.txt"
    grep -qx 'enable_uart=1' "$dir/config.txt" || printf '\n[all]\nenable_uart=1\n' >> "$dir/config.txt"
    mcopy -o -i "$at" "$dir/ridegate.toml" "$dir/cmdline.txt" "$dir/config.txt" ::/
    echo "$dir/ridegate.toml"
}
