#!/bin/bash
# PID 1 of the end-to-end VM (init=/e2e/guest-init.sh). Starts a mosquitto, the Bumble sensors (a strap, a
# power meter, a speed/cadence sensor) on /dev/vhci, a gpio-sim chip with a line named "led0", a pty fed with the demo ride, bluetoothd, and
# ridegate with a config using all of them. Then checks only what a user could observe: MQTT messages,
# the LED line's value over time, the exit status. Prints E2E_PASS / E2E_FAIL lines and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp
modprobe configfs && mount -t configfs none /sys/kernel/config
hostname e2e
up() { cut -d' ' -f1 /proc/uptime; }
PASS=0; FAIL=0
pass() { echo "E2E_PASS $*"; PASS=$((PASS + 1)); }
fail() { echo "E2E_FAIL $*"; FAIL=$((FAIL + 1)); }
# Loopback up (minbase has no iproute2): SIOCSIFFLAGS with IFF_UP | IFF_RUNNING.
python3 -c 'import fcntl, socket, struct; fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x8914, struct.pack("16sH14s", b"lo", 0x41, bytes(14)))' \
    || fail "loopback up"
finish() {
    echo "---- ridegate log"; tail -60 /tmp/ridegate.log
    echo "---- sensors log"; grep -v '_SENT' /tmp/sensors.log | tail -30
    echo "---- mqtt (first and last)"; head -5 /tmp/mqtt.log; tail -10 /tmp/mqtt.log
    echo "E2E_SUMMARY pass=$PASS fail=$FAIL uptime=$(up)s"
    sync; echo o > /proc/sysrq-trigger; sleep 5
}
echo "E2E_START kernel=$(uname -r)"

# MQTT broker
mosquitto -d -c /e2e/mosquitto.conf
for _ in $(seq 50); do mosquitto_sub -h 127.0.0.1 -t x -C 1 -W 1 >/dev/null 2>&1; [ $? -ne 5 ] && break; sleep 0.1; done
mosquitto_sub -h 127.0.0.1 -v -t 'ridegate/#' > /tmp/mqtt.log 2>&1 &

# GPIO: a simulated chip, line 3 named led0 (the LED), line 5 named lap0 (the lap button, to ground: pulled up)
modprobe gpio-sim || fail "gpio-sim module"
C=/sys/kernel/config/gpio-sim/e2e
mkdir $C $C/bank0 && echo 8 > $C/bank0/num_lines && mkdir $C/bank0/line3 && echo led0 > $C/bank0/line3/name \
    && mkdir $C/bank0/line5 && echo lap0 > $C/bank0/line5/name && echo 1 > $C/live
SIM=/sys/devices/platform/$(cat $C/dev_name)/$(cat $C/bank0/chip_name)
LED=$SIM/sim_gpio3/value
BUTTON=$SIM/sim_gpio5/pull
echo pull-up > $BUTTON
chgrp -R gpio /dev/gpiochip* 2>/dev/null

# Bluetooth: the sensors behind /dev/vhci, then bluetoothd (as on a Pi)
modprobe bluetooth && modprobe hci_vhci
/opt/bumble/bin/python /e2e/sensors.py > /tmp/sensors.log 2>&1 &
for _ in $(seq 200); do grep -q SENSORS_READY /tmp/sensors.log 2>/dev/null && [ -e /sys/class/bluetooth/hci0 ] && break; sleep 0.1; done
mkdir -p /run/dbus && dbus-daemon --system --fork --nopidfile
/usr/libexec/bluetooth/bluetoothd -n > /tmp/bluetoothd.log 2>&1 & BLUETOOTHD=$!
sleep 1
btmgmt --index 0 power on > /dev/null 2>&1

# GPS: the demo ride into a pty at 1 Hz, behind the udev-style name
python3 /e2e/feed_gps.py /e2e/ride.nmea --pty /dev/ridegate-gps > /tmp/gps.log 2>&1 &
for _ in $(seq 50); do [ -e /dev/ridegate-gps ] && break; sleep 0.1; done

# The gateway
/usr/bin/ridegate run --config /e2e/ridegate.toml > /tmp/ridegate.log 2>&1 & GATEWAY=$!
T0=$(up)

wait_for() { # timeout-seconds pattern file
    local deadline=$(( ${1%.*} * 10 )); local i=0
    while [ $i -lt $deadline ]; do grep -q "$2" "$3" 2>/dev/null && return 0; sleep 0.1; i=$((i + 1)); done
    return 1
}
# samples the LED for N seconds: "<rising edges> <on-pulse lengths in ms> <blinks per complete burst>"
sample_led() { python3 /e2e/sample_led.py "$LED" "$1"; }
# "every burst has N blinks, at least two bursts, every pulse 150 ms (100-220 under emulation)"
bursts_are() { # zone bursts pulses
    local zone=$1 bursts=$2 pulses=$3
    [ "$bursts" != "-" ] && [ "$pulses" != "-" ] || return 1
    [ "$(tr ',' '\n' <<< "$bursts" | wc -l)" -ge 2 ] || return 1
    for b in ${bursts//,/ }; do [ "$b" = "$zone" ] || return 1; done
    for p in ${pulses//,/ }; do [ "$p" -ge 100 ] && [ "$p" -le 220 ] || return 1; done
}

POWER_TOPIC=ridegate/e2e/sensor/e1e2e3e4e5e6
CSC_TOPIC=ridegate/e2e/sensor/d1d2d3d4d5d6
# 1. discovered and connected through the kernel, with bluetoothd running
if wait_for 40 'strap/f1f2f3f4f5f6/state.*"state":"connected"' /tmp/mqtt.log; then pass "strap connected with bluetoothd running ($(up)s)"; else fail "strap never connected"; finish; fi
# 2. heart rate as the strap sent it
if wait_for 20 '"bpm":100' /tmp/mqtt.log && grep -q 'STRAP_SENT bpm=100' /tmp/sensors.log && grep '"bpm":100' /tmp/mqtt.log | head -1 | grep -q '"contact":"detected"'; then
    pass "heart rate 100 bpm with contact on MQTT"
else fail "heart rate 100 not seen"; fi
# 3. the power meter and the speed/cadence sensor beside the strap, each on its own connection: power and
# cadence (90 rpm sent) from the meter's crank data, wheel speed (8 m/s sent) and cadence (85 rpm) from the
# sensor's revolutions, each under sensor/<address>
num() { grep "^$1 " /tmp/mqtt.log | grep -o "\"$2\":[0-9.]*" | tail -1 | cut -d: -f2; }
within() { python3 -c "import sys; v = sys.argv[1]; sys.exit(0 if v and $2 <= float(v) <= $3 else 1)" "$1"; }
if wait_for 40 "^$POWER_TOPIC/power .*\"power_w\":200" /tmp/mqtt.log && wait_for 20 "^$CSC_TOPIC/speed_cadence .*\"wheel_speed_mps\":[0-9]" /tmp/mqtt.log \
    && sleep 3 && within "$(num $POWER_TOPIC/power cadence_rpm)" 88 92 && within "$(num $CSC_TOPIC/speed_cadence wheel_speed_mps)" 7.8 8.2 \
    && within "$(num $CSC_TOPIC/speed_cadence cadence_rpm)" 83 87 && grep -q 'POWER_SENT watts=200' /tmp/sensors.log \
    && grep "^$POWER_TOPIC/info " /tmp/mqtt.log | tail -1 | grep -q '"location":"left_crank".*"measures":\["power","cadence"\]'; then
    pass "power meter and speed/cadence sensor on MQTT (cadence $(num $POWER_TOPIC/power cadence_rpm) rpm, wheel $(num $CSC_TOPIC/speed_cadence wheel_speed_mps) m/s)"
else fail "cycling sensors: power cadence '$(num $POWER_TOPIC/power cadence_rpm)', wheel '$(num $CSC_TOPIC/speed_cadence wheel_speed_mps)', csc cadence '$(num $CSC_TOPIC/speed_cadence cadence_rpm)'"; fi
# 4. LED timeline by power zone (led.zones = "power", ftp 250), counted per burst: 200 W is zone 3, three
# 150 ms blinks then a pause; 340 W is zone 6, six blinks then a pause (docs/hardware.md). The strap's
# heart-rate zones meanwhile are 1 and 4, so the count says which the LED follows. The line is ridegate's
# output while it runs.
gpioinfo 2>/dev/null | grep -q 'led0.*"ridegate".*output' && held=yes || held=no
sleep 4
# A zone-3 burst repeats every 2.7 s (3 x 400 ms, then 1.5 s) and only bursts seen whole count: 11 s holds
# two whole ones wherever the window starts (9 s did not when it began 1.65 s before a burst).
read -r edges3 pulses3 bursts3 <<< "$(sample_led 11)"
if wait_for 40 '"power_w":340' /tmp/mqtt.log; then zone6_seen=yes; else zone6_seen=no; fi
sleep 6 # the 3 s average, the hysteresis dwell, then a steady pattern
read -r edges6 pulses6 bursts6 <<< "$(sample_led 14)"
echo "  LED at power zone 3: bursts $bursts3, pulses $pulses3 ms; at zone 6: bursts $bursts6, pulses $pulses6 ms; held by ridegate: $held"
if [ "$held" = yes ] && [ "$zone6_seen" = yes ] && bursts_are 3 "$bursts3" "$pulses3" && bursts_are 6 "$bursts6" "$pulses6"; then
    pass "LED timeline follows the power zone (bursts of 3 at 200 W: $bursts3; bursts of 6 at 340 W: $bursts6)"
else fail "LED timeline: held $held, 340 W seen $zone6_seen, zone 3 bursts $bursts3 ($pulses3), zone 6 bursts $bursts6 ($pulses6)"; fi
# 5. GPS fixes and speed
# (the ride starts with the bike standing; under a loaded host the VM is slower, so wait for it to move)
if wait_for 60 '"speed_mps":[1-9]' /tmp/mqtt.log && grep -q '"mode":"3d"' /tmp/mqtt.log; then pass "GPS fixes with speed on MQTT"; else fail "no GPS fixes with speed"; fi
# 5b. the lap button (gpio-sim's line pulled down for 0.3 s, as a button to ground does): a lap, announced
echo pull-down > $BUTTON; sleep 0.3; echo pull-up > $BUTTON
if wait_for 15 '^ridegate/e2e/lap .*"trigger":"manual"' /tmp/mqtt.log; then pass "lap button pressed: a lap on MQTT ($(grep '^ridegate/e2e/lap ' /tmp/mqtt.log | tail -1 | cut -c1-120))"
else fail "lap button: no lap on MQTT ($(grep -c 'lap button' /tmp/ridegate.log) log lines: $(grep 'button' /tmp/ridegate.log | tail -2))"; fi
# 6. the strap and the power meter go away and come back: reconnected without a restart, this time without
# bluetoothd
wait_for 40 'strap/f1f2f3f4f5f6/state.*"state":"lost"' /tmp/mqtt.log && wait_for 20 "^$POWER_TOPIC/state .*\"state\":\"lost\"" /tmp/mqtt.log \
    && pass "strap and power meter losses reported" || fail "strap or power meter loss not reported"
kill $BLUETOOTHD; wait $BLUETOOTHD 2>/dev/null
btmgmt --index 0 power on > /dev/null 2>&1 # bluetoothd powers the adapter off when it exits
# Only what arrives after bluetoothd is gone counts: the log from this line on.
gone_at=$(wc -l < /tmp/mqtt.log)
pgrep -x bluetoothd > /dev/null && fail "bluetoothd still running"
after_gone() { tail -n +"$((gone_at + 1))" /tmp/mqtt.log; }
for _ in $(seq 400); do after_gone | grep -q '"bpm":130' && break; sleep 0.1; done
if after_gone | grep -q '"state":"connected"' && after_gone | grep -q '"bpm":130' && ! pgrep -x bluetoothd > /dev/null; then
    pass "strap reconnected without a restart and without bluetoothd"
else fail "no reconnection after bluetoothd stopped (log since then: $(after_gone | grep -c '') lines)"; fi
for _ in $(seq 200); do after_gone | grep -q '"power_w":150' && break; sleep 0.1; done
if after_gone | grep -q "^$POWER_TOPIC/state .*\"state\":\"connected\"" && after_gone | grep -q "^$POWER_TOPIC/power .*\"power_w\":150"; then
    pass "power meter reconnected without a restart (150 W after its return)"
else fail "power meter not back: $(after_gone | grep "^$POWER_TOPIC/state" | tail -1)"; fi
# 7. SIGTERM: clean exit, the LED line given back, offline published last, no state claiming a connection.
# (That the line is driven low before it is released cannot be seen here: gpio-sim pulls a released line
# to its pull either way. LEDSinkTests checks that order with a recording output.)
kill -TERM $GATEWAY; wait $GATEWAY; status=$?
sleep 1
released=$(gpioinfo 2>/dev/null | grep 'led0' | grep -c '"ridegate"')
if [ "$status" = 0 ] && [ "$released" = 0 ] && [ "$(tail -1 /tmp/mqtt.log)" = 'ridegate/e2e/status offline' ] \
    && grep 'ridegate/e2e/strap/.*/state' /tmp/mqtt.log | tail -1 | grep -q '"state":"stopped"' \
    && grep "^$POWER_TOPIC/state " /tmp/mqtt.log | tail -1 | grep -q '"state":"stopped"' \
    && grep "^$CSC_TOPIC/state " /tmp/mqtt.log | tail -1 | grep -q '"state":"stopped"'; then
    pass "SIGTERM: exit 0, LED line released, offline published last, every sensor's state stopped"
else fail "SIGTERM: exit $status, line still held: $released, last mqtt: $(tail -1 /tmp/mqtt.log)"; fi
# The ride's FIT file, for the host to read with Garmin's FIT SDK (the lap the button made must be in it).
if ridegate rides export latest --format fit -o /tmp/ride.fit --config /e2e/ridegate.toml 2>> /tmp/ridegate.log; then
    echo "E2E_FIT_BEGIN"; base64 -w 76 /tmp/ride.fit; echo "E2E_FIT_END"
fi
finish
