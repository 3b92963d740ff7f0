#!/bin/bash
# PID 1 of the power-cut VM (scripts/power-cut). Checks the state disk as a Pi's first boot after a cut would
# find it — the file system (after its journal is replayed), both databases, the ride log through ridegate —
# then (pc.mode=ride) runs the gateway until the host cuts the power, (pc.mode=final) runs it 20 s and stops it
# in order, or (pc.mode=check) powers off. Prints PC_* lines on the console, which the host reads.
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
# The sensors: three Bumble devices behind /dev/vhci (e2e/sensors.py), the adapter powered on once it appears
# (bluetoothd would, on a Pi). The gateway does not wait for them: it retries until the adapter is there, so a
# cut finds the sensors connected in some rides and not yet in others.
sensors() {
    modprobe bluetooth && modprobe hci_vhci || { echo "PC_NOTE no hci_vhci"; return; }
    /opt/bumble/bin/python /pc/sensors.py > /tmp/sensors.log 2>&1 &
    # Powered on once Bumble's controller is up (earlier, the kernel's setup of hci0 may refuse it), checked.
    (for _ in $(seq 600); do grep -q SENSORS_READY /tmp/sensors.log 2>/dev/null && [ -e /sys/class/bluetooth/hci0 ] && break; sleep 0.2; done
     for _ in $(seq 30); do
         btmgmt --index 0 power on > /dev/null 2>&1
         btmgmt --index 0 info 2>/dev/null | grep -q "current settings:.* powered" && { echo "PC_SENSORS_READY"; exit 0; }
         sleep 1
     done
     echo "PC_NOTE the Bluetooth adapter did not power on: $(tail -3 /tmp/sensors.log | tr '\n' ' ')") &
}
if [ "$mode" = record ]; then
    # Every write of a short ride, with its flushes, through dm-log-writes onto the third disk (the host replays
    # it to each flush point). No broker: the readings stay in the spool, so none may go missing.
    modprobe dm-log-writes
    dmsetup create rec --table "0 $(blockdev --getsz /dev/vdb) log-writes /dev/vdb /dev/vdc" || echo "PC_RECORD_FAILED dmsetup"
    dmsetup mknodes rec # no udev here to make /dev/mapper/rec
    mount -t ext4 /dev/mapper/rec $STATE 2>&1 | sed 's/^/PC_NOTE /'
    mountpoint -q $STATE || echo "PC_RECORD_FAILED mount"
    # The host's GPS stands after 20 s; a minute later the ride ends (its files, its upload queued).
    sed "s/^\[ride\]$/[ride]\nnew_ride_after_min = 1/" /pc/ridegate.toml > /tmp/record.toml
    sensors
    ridegate run --config /tmp/record.toml > /tmp/ridegate.log 2>&1 &
    GATEWAY=$!
    # A mark in the log each second: the time, and the ride log's moving points as a reader sees them then (their
    # count and the newest one's time; the standing tail a ride's end drops is not counted). Whatever the gateway
    # had committed before a mark must be on the disk at every state after it: those points at once (each batch's
    # commit is synced), the GPS readings of those epochs in the spool within its sync interval.
    (while sleep 1 && [ ! -e /tmp/marks.stop ]; do
        seen=$(sqlite3 -readonly $STATE/rides.sqlite 'SELECT count(*), coalesce(max(time), 0) FROM points WHERE moving = 1' 2>/dev/null | tr '|' ' ')
        set -- ${seen:-0 0}
        dmsetup message rec 0 mark "t$(date +%s.%N),p$1,m$2" # one word: the target takes one argument
    done) &
    MARKS=$!
    # Until the ride has ended, its two files are written and its upload is queued, and a few seconds more.
    for _ in $(seq 150); do
        sleep 1
        ended=$(sqlite3 -readonly $STATE/rides.sqlite "SELECT count(*) FROM rides r WHERE closed = 1 AND exported LIKE '%fit%' AND exported LIKE '%gpx%' AND EXISTS (SELECT 1 FROM uploads u WHERE u.ride = r.id)" 2>/dev/null)
        [ "${ended:-0}" -gt 0 ] && break
    done
    echo "PC_RIDE_ENDED ${ended:-0}"
    sleep 5
    kill -KILL $GATEWAY
    # The marks end after their current reader (an open file would keep the disk from being unmounted).
    touch /tmp/marks.stop
    wait $GATEWAY $MARKS
    umount $STATE && dmsetup remove rec && echo "PC_RECORDED" || echo "PC_RECORD_FAILED teardown"
    tail -5 /tmp/ridegate.log | sed 's/^/PC_LOG /'
    grep -c _SENT /tmp/sensors.log | sed 's/^/PC_SENSOR_NOTIFICATIONS /'
    off
fi
# The journal is replayed by a mount (as at boot); then the file system is checked without changing it.
if mount -t ext4 /dev/vdb $STATE && umount $STATE; then
    if e2fsck -fn /dev/vdb > /tmp/fsck.log 2>&1; then echo "PC_FSCK clean"; else echo "PC_FSCK damaged"; tail -20 /tmp/fsck.log; fi
else
    echo "PC_FSCK unmountable"
fi
mount -t ext4 /dev/vdb $STATE || { echo "PC_DONE"; off; }
# The checks read a copy: opening the files themselves would let SQLite checkpoint the WAL into the database and
# delete it as the last connection closes, and the gateway would never meet a WAL a cut left (mid-checkpoint too).
CHECK=/tmp/check
mkdir -p $CHECK
cp -a $STATE/. $CHECK/
for db in rides spool; do
    f=$CHECK/$db.sqlite
    [ -f "$f" ] || { echo "PC_INTEGRITY $db absent"; continue; }
    echo "PC_INTEGRITY $db $(sqlite3 "$f" 'PRAGMA integrity_check' 2>&1 | head -3 | tr '\n' ' ')"
done
# What the spool held at the cut: the readings the broker had not acknowledged, kept for it.
echo "PC_SPOOLED $(sqlite3 $CHECK/spool.sqlite 'SELECT count(*) FROM spool' 2>/dev/null || echo 0)"
# What a rider would run: the rides, and the latest as a file.
rides=$(ridegate rides list --json --state-directory $CHECK 2>/tmp/rides.err); status=$?
echo "PC_RIDES status=$status $(echo "$rides" | tr -d '\n')"
[ $status -eq 0 ] || cat /tmp/rides.err
if [ "$(echo "$rides" | tr -d '[:space:]')" != "[]" ] && [ $status -eq 0 ]; then
    ridegate rides export latest --format fit -o /tmp/latest.fit --state-directory $CHECK 2>/tmp/export.err
    echo "PC_EXPORT status=$? bytes=$(stat -c %s /tmp/latest.fit 2>/dev/null || echo 0)"
fi
if [ "$mode" = check ]; then echo "PC_DONE"; off; fi

# The gateway, as the systemd unit runs it, until the power goes.
sensors
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
# The last boot (pc.mode=final) rides on with the broker there, so the spool of the last cut reaches it, then
# stops in order as the systemd unit would.
[ "$mode" = final ] && (sleep 20; kill -TERM $GATEWAY) &
wait $GATEWAY
echo "PC_GATEWAY_EXITED status=$?"
off
