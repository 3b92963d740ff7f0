#!/usr/bin/env python3
"""The functions ridegate runs, for the release link's hot-code order (scripts/order-hot-code).

Runs the binary under valgrind's callgrind for what a rider's Pi does: `--help`, `ridegate run` with a 10 Hz
GPS on a pty publishing to a local mosquitto, and the demo (a simulated strap, speed/cadence sensor and power
meter over ATT, the ride log). Prints the executed functions that are defined once in the binary, sorted by
name so the file's diffs stay readable. A name defined in many object files (a merged local helper) would
pull all of their code into the hot part, so those are left out. Not a test."""
import collections, os, pty, signal, subprocess, sys, tempfile, threading, time

binary, mqtt_port, nmea_path = sys.argv[1], sys.argv[2], sys.argv[3]
work = tempfile.mkdtemp(prefix="ridegate-hot-")
profiles = []


def callgrind(name, args, seconds=None, stdin=None):
    out = os.path.join(work, f"{name}.callgrind")
    command = ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no", "--compress-pos=no",
               f"--callgrind-out-file={out}", binary] + args
    p = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=stdin)
    if seconds is not None:
        time.sleep(seconds)
        p.send_signal(signal.SIGTERM)  # a clean shutdown: callgrind writes its profile at exit
    p.wait(timeout=120)
    profiles.append(out)
    print(f"  {name}: profiled", file=sys.stderr)


def checksum(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return f"{c:02X}"


callgrind("help", ["--help"])

# ridegate run: a GPS on a pty at 10 Hz, publishing to the broker.
controller, device = pty.openpty()
path = os.ttyname(device)
config = os.path.join(work, "run.toml")
with open(config, "w") as f:
    f.write(f'state_directory = "{work}/run-state"\n[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\n'
            f'[gps]\ndevice = "{path}"\n[heart_rate]\nenabled = false\n')
lines = [l.strip() for l in open(nmea_path) if l.startswith("$")]
stop = threading.Event()


def feed():
    i = 0
    while not stop.is_set():
        try:
            os.write(controller, (lines[i % len(lines)] + "\r\n").encode())
        except OSError:
            return
        i += 1
        time.sleep(0.01)


feeder = threading.Thread(target=feed, daemon=True)
feeder.start()
callgrind("run", ["run", "--config", config], seconds=40)
stop.set()

callgrind("demo", ["demo", "--broker", f"127.0.0.1:{mqtt_port}", "--device-id", "hot", "--speed", "10"], seconds=60)

# Executed functions in the binary (not in the shared C libraries), from every profile.
executed = set()
for profile in profiles:
    in_binary = False
    for line in open(profile, errors="replace"):
        if line.startswith("ob="):
            in_binary = os.path.realpath(line[3:].strip()) == os.path.realpath(binary)
        elif line.startswith("fn=") and in_binary:
            executed.add(line[3:].strip().split("'")[0])  # callgrind marks recursion levels with 'N

defined = collections.Counter()
for line in subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        defined[parts[2]] += 1
chosen = sorted(name for name in executed if defined[name] == 1)
print(f"  {len(executed)} functions executed, {len(chosen)} defined once", file=sys.stderr)
print("\n".join(chosen))
