"""Sensor event -> MQTT subscriber latency for scripts/bench: a pty GPS sends fixes stamped with the
current UTC time at R epochs per second; a subscriber (mosquitto_sub, receive time %U) reads each gps
message's `ts`; latency = receive time - ts. Prints "rate p50_ms p99_ms max_ms received sent" per rate."""
import datetime
import os
import pty
import subprocess
import sys
import threading
import time
import tty

binary, port, work = sys.argv[1], sys.argv[2], sys.argv[3]
rates = [int(r) for r in sys.argv[4].split(",")] if len(sys.argv) > 4 else [10, 100, 1000]
seconds = 5


def checksum(body):
    value = 0
    for c in body.encode():
        value ^= c
    return f"{value:02X}"


def sentence(body):
    return f"${body}*{checksum(body)}\r\n".encode()


for rate in rates:
    controller, device = pty.openpty()
    tty.setraw(device)
    tty.setraw(controller)
    config = f"{work}/latency-{rate}.toml"
    with open(config, "w") as f:
        f.write(f'device_id = "lat{rate}"\nstate_directory = "{work}/latency-state-{rate}"\n[mqtt]\nhost = "127.0.0.1"\nport = {port}\n'
                f'homeassistant_discovery = false\n[gps]\ndevice = "{os.ttyname(device)}"\n[heart_rate]\nenabled = false\n[sun]\nenabled = false\n')
    sub = subprocess.Popen(["mosquitto_sub", "-p", port, "-t", f"ridegate/lat{rate}/gps", "-F", "%U %p"], stdout=subprocess.PIPE, text=True)
    gateway = subprocess.Popen([binary, "run", "--config", config], stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(sub.stdout), daemon=True)
    reader.start()
    sent = 0
    start = time.monotonic()
    interval = 1.0 / rate
    next_at = start
    while time.monotonic() - start < seconds:
        now = datetime.datetime.now(datetime.timezone.utc)
        t = now.strftime("%H%M%S") + f".{now.microsecond // 1000:03d}"
        d = now.strftime("%d%m%y")
        os.write(controller, sentence(f"GPGGA,{t},4000.00000,N,10500.00000,W,1,08,0.9,1600.0,M,-18.0,M,,")
                 + sentence(f"GPRMC,{t},A,4000.00000,N,10500.00000,W,10.000,90.0,{d},,,A"))
        sent += 1
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    time.sleep(1.0)
    gateway.terminate()
    gateway.wait()
    sub.terminate()
    reader.join(timeout=2)
    latencies = []
    for line in lines:
        received, _, payload = line.partition(" ")
        marker = payload.find('"ts":"')
        if marker < 0:
            continue
        ts = datetime.datetime.strptime(payload[marker + 6:marker + 29], "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
        latencies.append((float(received) - ts.timestamp()) * 1000)
    latencies.sort()
    if latencies:
        p50 = latencies[len(latencies) // 2]
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        print(f"{rate} {p50:.1f} {p99:.1f} {latencies[-1]:.1f} {len(latencies)} {sent}")
    else:
        print(f"{rate} - - - 0 {sent}")
    os.close(controller)
    os.close(device)
