#!/usr/bin/env python3
"""A fleet against one mosquitto: N demo gateways at 1x (distinct device ids, their own state directories).
Measures the broker's CPU and memory per gateway while they ride, then the reconnect storm after the broker
is away for `outage` seconds: how the gateways' reconnections spread over time (when each one's retained
`online` status reaches a subscriber that connected as the broker came back), and how long until every
backlog is delivered (no replayed reading seen for 3 s). Prints `key value` lines for scripts/bench. Not a test."""
import os, signal, socket, subprocess, sys, threading, time

binary, count, seconds, outage, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_broker(port):
    conf = f"{work}/mosquitto.conf"
    with open(conf, "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\nmax_connections -1\n"
                f"log_dest file {work}/mosquitto.log\n"
                + ("user root\n" if os.getuid() == 0 else ""))
    broker = subprocess.Popen(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return broker
        except OSError:
            time.sleep(0.05)
    raise SystemExit("mosquitto did not start")


def cpu_and_rss(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return (int(fields[11]) + int(fields[12])) / TICKS, rss / 1024


class Subscriber:
    """Every message on ridegate/#: counts, the online statuses, and when a replayed reading was last seen."""

    def __init__(self, port):
        self.online, self.messages, self.last_replayed = {}, 0, 0.0
        self.process = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-t", "ridegate/#", "-v", "-q", "0"],
                                        stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            topic, _, payload = line.rstrip("\n").partition(" ")
            self.messages += 1
            if topic.endswith("/status"):
                if payload == "online":
                    self.online.setdefault(topic, time.monotonic())
                else:
                    self.online.pop(topic, None)
            elif '"replayed":true' in payload:
                self.last_replayed = time.monotonic()

    def stop(self):
        self.process.terminate()


port = free_port()
broker = start_broker(port)
subscriber = Subscriber(port)
gateways = []
for i in range(count):
    state = f"{work}/bike-{i}"
    gateways.append(subprocess.Popen([binary, "demo", "--broker", f"127.0.0.1:{port}", "--speed", "1", "--device-id", f"fleet-{i}",
                                      "--state-directory", state, "--keep-retained", "--log-level", "warning"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(0.05)
deadline = time.monotonic() + 60
while len(subscriber.online) < count and time.monotonic() < deadline:
    time.sleep(0.2)
print("online", len(subscriber.online))
time.sleep(5)
cpu0, _ = cpu_and_rss(broker.pid)
m0, t0 = subscriber.messages, time.monotonic()
time.sleep(seconds)
cpu1, rss = cpu_and_rss(broker.pid)
elapsed = time.monotonic() - t0
print("messages_per_s", round((subscriber.messages - m0) / elapsed, 1))
print("broker_cpu_percent", round(100 * (cpu1 - cpu0) / elapsed, 2))
print("broker_rss_mb", round(rss, 1))

# The storm: the broker away for `outage` seconds, then back on the same port.
broker.send_signal(signal.SIGTERM)
broker.wait()
subscriber.stop()
time.sleep(outage)
broker = start_broker(port)
back = time.monotonic()
subscriber = Subscriber(port)
deadline = back + 120
while len(subscriber.online) < count and time.monotonic() < deadline:
    time.sleep(0.05)
times = sorted(t - back for t in subscriber.online.values())
print("reconnected", len(times))
if times:
    print("reconnect_first_s", round(times[0], 2))
    print("reconnect_last_s", round(times[-1], 2))
    print("most_in_100_ms", max(sum(1 for t in times if s <= t < s + 0.1) for s in times))
while time.monotonic() - max(subscriber.last_replayed, back) < 3 and time.monotonic() - back < 120:
    time.sleep(0.1)
print("backlog_delivered_s", round(max(subscriber.last_replayed - back, 0), 1))
for g in gateways:
    g.send_signal(signal.SIGTERM)
for g in gateways:
    try:
        g.wait(timeout=15)
    except subprocess.TimeoutExpired:
        g.kill()
subscriber.stop()
broker.terminate()
