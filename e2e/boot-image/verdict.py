"""scripts/boot-image's verdict on one boot: the guest's own checks (BOOT_PASS/BOOT_FAIL on its console) and what
reached the broker. The first boot runs the card's configuration; the second a mistyped one, so the last good
copy must run and the LED say so. Prints the checks and a line for the boot; leaves "PASS FAIL SECONDS" in
RUN_DIR/PHASE.result. Usage: verdict.py RUN_DIR PHASE POWERED_ON_EPOCH GUEST_CHECKS"""
import json
import sys

run, phase, powered_on, guest_checks = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
# A getty on the same console may print its prompt in front of a line: keep what follows the marker.
console = [line[line.index("BOOT_"):] if "BOOT_" in line else line
           for line in open(f"{run}/{phase}.console.log", errors="replace").read().splitlines()]
messages = []
for line in open(f"{run}/{phase}.mqtt.log", errors="replace").read().splitlines():
    parts = line.split(" ", 2)
    if len(parts) == 3:
        messages.append((float(parts[0]), parts[1], parts[2]))
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(f"BOOT_{'PASS' if ok else 'FAIL'} {what}")
    passed, failed = passed + ok, failed + (not ok)


for line in console:
    if line.startswith(("BOOT_PASS", "BOOT_FAIL", "BOOT_LED", "BOOT_GUEST")):
        print(line)
guest_pass = sum(line.startswith("BOOT_PASS") for line in console)
guest_fail = sum(line.startswith("BOOT_FAIL") for line in console)
passed, failed = guest_pass, guest_fail
check(guest_pass + guest_fail == guest_checks, f"the guest ran all its {guest_checks} checks ({guest_pass + guest_fail})")


def payloads(suffix):
    return [(t, json.loads(p)) for t, topic, p in messages if topic.endswith(suffix) and p.startswith("{")]


status = [p for t, topic, p in messages if topic == "boottest/testbike/status"]
check("online" in status, f"boottest/testbike/status online (the FAT partition's prefix, the seed's host name): {status[:3]}")
fixes = [(t, p) for t, p in payloads("/gps") if p.get("lat") is not None]
check(len(fixes) >= 5, f"GPS fixes over MQTT from the virtual UART: {len(fixes)}")
health = [p for _, p in payloads("/health")]
last = health[-1] if health else {}
config = "last_good" if phase == "second" else "file"
check(last.get("state_storage") == "writable" and last.get("spool_mode") == "disk" and last.get("ride_log") == "disk"
      and last.get("config") == config,
      f"health: config {last.get('config')} (expected {config}), state_storage {last.get('state_storage')}, "
      f"spool_mode {last.get('spool_mode')}, ride_log {last.get('ride_log')}")
led = next((line.split()[1:] for line in console if line.startswith("BOOT_LED")), [])
pulses = [int(x) for x in led[1].split(",")] if len(led) >= 2 and led[1] != "-" else []
if phase == "second":
    # Long-short-short: the configuration file refused (SingleLEDPatterns), in place of "searching for strap".
    long, short = [p for p in pulses if 1000 <= p <= 1400], [p for p in pulses if 200 <= p <= 450]
    check(len(pulses) >= 3 and len(long) + len(short) == len(pulses) and len(long) >= 1 and len(short) >= 2,
          f"the LED line blinks 'configuration refused' (1.2 s, then 300 ms twice): pulses {pulses} ms")
else:
    check(len(pulses) >= 3 and all(800 <= p <= 1300 for p in pulses),
          f"the LED line blinks 'searching for strap' (1 s on, 1 s off): pulses {pulses} ms")
first = min((t for t, _ in fixes), default=None)
took = f"{first - powered_on:.0f}" if first else "-1"
print(f"boot-image, {phase} boot: pass={passed} fail={failed}, first reading {took} s after power-on")
with open(f"{run}/{phase}.result", "w") as f:
    f.write(f"{passed} {failed} {took}\n")
sys.exit(0 if failed == 0 and passed > 0 else 1)
