#!/usr/bin/env python3
"""The same 10 Hz NMEA stream on a pty into gpsd (with one JSON client) and into `ridegate run` (GPS only,
publishing every fix to a local mosquitto): context switches of all threads per epoch, CPU, memory, threads.
Prints one line per program: name epochs delivered wakeups_per_epoch cpu_percent rss_mb peak_mb threads.
Not a test (scripts/bench)."""
import os, pty, socket, subprocess, sys, threading, time

binary, mqtt_port, seconds, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
RATE = 10
WARMUP = 3


def checksum(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return f"${body}*{c:02X}\r\n"


def epoch(i):
    t = 12 * 3600 + i / RATE
    hh, mm, ss = int(t // 3600), int(t % 3600 // 60), t % 60
    stamp = f"{hh:02d}{mm:02d}{ss:05.2f}"
    lat = 4000.0 + i * 0.0005  # ddmm.mmmm, moving north ~ 9 m/s
    rmc = checksum(f"GPRMC,{stamp},A,{lat:09.4f},N,10516.2301,W,17.5,0.0,210626,,,A")
    gga = checksum(f"GPGGA,{stamp},{lat:09.4f},N,10516.2301,W,1,09,0.9,1650.0,M,-21.0,M,,")
    return (rmc + gga).encode()


def feed(fd, stop, counter):
    i = 0
    start = time.monotonic()
    while not stop.is_set():
        os.write(fd, epoch(i))
        i += 1
        counter[0] = i
        delay = start + i / RATE - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def sample(pid):
    # Per thread (a thread exiting in between must not make the total go down). CPU from each thread's
    # schedstat (nanoseconds): /proc/PID/stat counts 10 ms ticks, and at 0.2 % of a core over 20 s that is
    # four ticks, too coarse for a ratio.
    switches, cpu = {}, {}
    for task in os.listdir(f"/proc/{pid}/task"):
        for line in open(f"/proc/{pid}/task/{task}/status"):
            if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                switches[task] = switches.get(task, 0) + int(line.split()[1])
        cpu[task] = int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0]) / 1e9
    status = {l.split(":")[0]: l.split()[1] for l in open(f"/proc/{pid}/status") if l.startswith(("VmRSS", "VmHWM", "Threads"))}
    return switches, cpu, int(status["VmRSS"]) // 1024, int(status["VmHWM"]) // 1024, int(status["Threads"])


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def measure(name, start_program, start_client):
    controller, device = pty.openpty()
    path = os.ttyname(device)
    proc = start_program(path)
    stop, counter = threading.Event(), [0]
    writer = threading.Thread(target=feed, args=(controller, stop, counter), daemon=True)
    writer.start()
    time.sleep(1)
    client, delivered = start_client()
    time.sleep(WARMUP)
    a, ca, _, _, _ = sample(proc.pid)
    e0, d0 = counter[0], delivered()
    time.sleep(seconds)
    b, cb, rss, peak, threads = sample(proc.pid)
    s0, s1 = 0, sum(v - a.get(t, 0) for t, v in b.items())
    c0, c1 = 0, sum(v - ca.get(t, 0) for t, v in cb.items())
    e1, d1 = counter[0], delivered()
    stop.set()
    proc.terminate()
    proc.wait()
    client()
    epochs = e1 - e0
    print(f"{name} {epochs} {d1 - d0} {(s1 - s0) / max(1, epochs):.2f} {100 * (c1 - c0) / seconds:.3f} {rss} {peak} {threads}")
    os.close(controller)
    os.close(device)


def gpsd_program(path):
    port = free_port()
    gpsd_program.port = port
    return subprocess.Popen(["gpsd", "-N", "-n", "-b", "-S", str(port), path], stderr=subprocess.DEVNULL)


def gpsd_client():
    sock = socket.create_connection(("127.0.0.1", gpsd_program.port))
    sock.sendall(b'?WATCH={"enable":true,"json":true}\n')
    count = [0]
    done = threading.Event()

    def read():
        buffer = b""
        sock.settimeout(0.5)
        while not done.is_set():
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\n")
            count[0] += sum(1 for l in lines if b'"class":"TPV"' in l)

    threading.Thread(target=read, daemon=True).start()

    def delivered_or_close():
        return count[0]

    def closer():
        done.set()
        sock.close()

    gpsd_client.closer = closer
    return (lambda: closer()), delivered_or_close


def ridegate_program(path):
    config = f"{work}/gps-only.toml"
    with open(config, "w") as f:
        f.write(f'state_directory = "{work}/gps-only-state"\n[mqtt]\nhost = "127.0.0.1"\nport = {mqtt_port}\n'
                f'homeassistant_discovery = false\n[gps]\ndevice = "{path}"\nbaud = 9600\n[heart_rate]\nenabled = false\n')
    return subprocess.Popen([binary, "run", "--config", config], stderr=subprocess.DEVNULL)


def ridegate_client():
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(mqtt_port), "-t", "ridegate/+/gps"], stdout=subprocess.PIPE)
    count = [0]

    def read():
        for _ in sub.stdout:
            count[0] += 1

    threading.Thread(target=read, daemon=True).start()
    return (lambda: sub.terminate()), (lambda: count[0])


measure("gpsd", gpsd_program, gpsd_client)
measure("ridegate", ridegate_program, ridegate_client)
