#!/bin/bash
# PID 1 of the power-cut VM (scripts/power-cut). Checks the state disk as a Pi's first boot after a cut would
# find it — the file system (after its journal is replayed), both databases, the ride log through ridegate —
# then (pc.mode=ride) runs the gateway until the host cuts the power, or (pc.mode=check) powers off. Prints
# PC_* lines on the console, which the host reads.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp
hostname bike
mode=$(sed -n 's/.* pc\.mode=\([a-z]*\).*/\1/p' /proc/cmdline)
off() { sync; echo o > /proc/sysrq-trigger; sleep 5; }
echo "PC_BOOT mode=$mode kernel=$(uname -r)"

modprobe virtio_net
ip link set lo up
# The VM's one network card (named by the initramfs's udev: ens2 or the like), to reach the host's broker.
nic=$(ls /sys/class/net | grep -v '^lo$' | head -1)
ip link set "$nic" up && ip addr add 10.0.2.15/24 dev "$nic" || echo "PC_NOTE no network (${nic:-no card})"

STATE=/var/lib/ridegate
mkdir -p $STATE
if [ "$mode" = record ]; then
    # Every write of a short ride, with its flushes, through dm-log-writes onto the third disk (the host replays
    # it to each flush point). No broker: the readings stay in the spool, so none may go missing.
    modprobe dm-log-writes
    dmsetup create rec --table "0 $(blockdev --getsz /dev/vdb) log-writes /dev/vdb /dev/vdc" || echo "PC_RECORD_FAILED dmsetup"
    dmsetup mknodes rec # no udev here to make /dev/mapper/rec
    mount -t ext4 /dev/mapper/rec $STATE 2>&1 | sed 's/^/PC_NOTE /'
    mountpoint -q $STATE || echo "PC_RECORD_FAILED mount"
    ridegate run --config /pc/ridegate.toml > /tmp/ridegate.log 2>&1 &
    GATEWAY=$!
    sleep 25
    kill -KILL $GATEWAY
    umount $STATE && dmsetup remove rec && echo "PC_RECORDED" || echo "PC_RECORD_FAILED teardown"
    tail -5 /tmp/ridegate.log | sed 's/^/PC_LOG /'
    off
fi
# The journal is replayed by a mount (as at boot); then the file system is checked without changing it.
if mount -t ext4 /dev/vdb $STATE && umount $STATE; then
    if e2fsck -fn /dev/vdb > /tmp/fsck.log 2>&1; then echo "PC_FSCK clean"; else echo "PC_FSCK damaged"; tail -20 /tmp/fsck.log; fi
else
    echo "PC_FSCK unmountable"
fi
mount -t ext4 /dev/vdb $STATE || { echo "PC_DONE"; off; }
for db in rides spool; do
    f=$STATE/$db.sqlite
    [ -f "$f" ] || { echo "PC_INTEGRITY $db absent"; continue; }
    echo "PC_INTEGRITY $db $(sqlite3 "$f" 'PRAGMA integrity_check' 2>&1 | head -3 | tr '\n' ' ')"
done
# What a rider would run: the rides, and the latest as a file.
rides=$(ridegate rides list --json --state-directory $STATE 2>/tmp/rides.err); status=$?
echo "PC_RIDES status=$status $(echo "$rides" | tr -d '\n')"
[ $status -eq 0 ] || cat /tmp/rides.err
if [ "$(echo "$rides" | tr -d '[:space:]')" != "[]" ] && [ $status -eq 0 ]; then
    ridegate rides export latest --format fit -o /tmp/latest.fit --state-directory $STATE 2>/tmp/export.err
    echo "PC_EXPORT status=$? bytes=$(stat -c %s /tmp/latest.fit 2>/dev/null || echo 0)"
fi
if [ "$mode" != ride ]; then echo "PC_DONE"; off; fi

# The gateway, as the systemd unit runs it, until the power goes.
ridegate run --config /pc/ridegate.toml > /tmp/ridegate.log 2>&1 &
GATEWAY=$!
for _ in $(seq 600); do
    grep -q "GPS device open" /tmp/ridegate.log 2>/dev/null && break
    kill -0 $GATEWAY 2>/dev/null || break
    sleep 0.1
done
if kill -0 $GATEWAY 2>/dev/null; then echo "PC_RIDING"; else echo "PC_GATEWAY_DIED"; tail -30 /tmp/ridegate.log; fi
# Its log on the console as it goes: what it said before the power went.
tail -n +1 -f /tmp/ridegate.log | sed -u 's/^/PC_LOG /' &
wait $GATEWAY
echo "PC_GATEWAY_EXITED status=$?"
off
