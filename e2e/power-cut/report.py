"""What the power cuts did (scripts/power-cut): reads the run's folder — each boot's console, what the host fed
the GPS before each cut, every message the broker got — and prints one line per cut and the summary line.
Exit 0 only if every check held, no seq was reused and the losses are at most 10 s.

    report.py RUN_DIR CUTS
"""
import datetime
import json
import os
import statistics
import sys

run, cuts = sys.argv[1], int(sys.argv[2])
LIMIT = 10.0


def seconds(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def lines(path):
    try:
        with open(path, errors="replace") as f:
            return [line.rstrip("\r\n") for line in f]
    except OSError:
        return []


def console(name):
    """The PC_ lines of a boot's console, by kind (the first of each)."""
    found = {}
    for line in lines(os.path.join(run, "console-%s.log" % name)):
        if line.startswith("PC_"):
            kind, _, rest = line.partition(" ")
            if kind == "PC_INTEGRITY":
                db, _, result = rest.partition(" ")
                found["PC_INTEGRITY_" + db] = result.strip()
            else:
                found.setdefault(kind, rest)
    return found


def last_fed(cut):
    fed = [line.split() for line in lines(os.path.join(run, "fed-%d.log" % cut)) if line.startswith("FED ")]
    return float(fed[-1][1]) if fed else None


# Every message the broker got, across every boot: (topic, seq) -> payloads; the GPS readings' times.
payloads, gps_times = {}, []
for line in lines(os.path.join(run, "received.log")):
    topic, _, text = line.partition(" ")
    try:
        body = json.loads(text)
    except ValueError:
        continue
    if not isinstance(body, dict) or "seq" not in body:
        continue
    # A reading sent again after a restart is marked "replayed": the same reading, not a seq given twice.
    body.pop("replayed", None)
    payloads.setdefault((topic, body["seq"]), set()).add(json.dumps(body, sort_keys=True))
    if topic.endswith("/gps") and "ts" in body:
        gps_times.append(seconds(body["ts"]))
reused = sorted(key for key, texts in payloads.items() if len(texts) > 1)

intact = clean = continued = 0
points_lost, readings_lost, failures = [], [], []
for cut in range(1, cuts + 1):
    after = console(cut + 1 if cut < cuts else "final")
    fed = last_fed(cut)
    ok_db = after.get("PC_INTEGRITY_rides") == "ok" and after.get("PC_INTEGRITY_spool") == "ok"
    ok_fsck = after.get("PC_FSCK") == "clean"
    rides_text = after.get("PC_RIDES", "")
    status, _, listing = rides_text.partition(" ")
    try:
        rides = json.loads(listing) if status == "status=0" else None
    except ValueError:
        rides = None
    started = cut == cuts or "PC_RIDING" in after
    exported = after.get("PC_EXPORT", "").startswith("status=0")
    ok_ride = rides is not None and len(rides) == 1 and started and exported
    intact += ok_db
    clean += ok_fsck
    continued += ok_ride
    lost = fed - max(seconds(r["end"]) for r in rides) if rides and fed else None
    received = [t for t in gps_times if fed is not None and t <= fed + 0.5]
    unread = fed - max(received) if fed is not None and received else None
    if lost is not None:
        points_lost.append(lost)
    if unread is not None:
        readings_lost.append(unread)
    print("cut %d: fsck %s, rides.sqlite %s, spool.sqlite %s, rides %s%s, export %s, last point %s s and last reading %s s before the cut"
          % (cut, after.get("PC_FSCK", "?"), after.get("PC_INTEGRITY_rides", "?"), after.get("PC_INTEGRITY_spool", "?"),
             len(rides) if rides is not None else rides_text[:80], "" if started else " (gateway did not start again)",
             after.get("PC_EXPORT", "-"), "%.1f" % lost if lost is not None else "?", "%.1f" % unread if unread is not None else "?"))
    if not (ok_db and ok_fsck and ok_ride) or lost is None or unread is None:
        failures.append(cut)

for key in reused[:5]:
    print("seq reused: %s seq %s: %s" % (key[0], key[1], sorted(payloads[key])))
worst_points = max(points_lost) if points_lost else float("nan")
median_points = statistics.median(points_lost) if points_lost else float("nan")
worst_readings = max(readings_lost) if readings_lost else float("nan")
print("power-cut: %d cuts, databases intact %d/%d, fsck clean %d/%d, rides continued %d/%d, seq reused %d, "
      "points lost max %.1f s (median %.1f s), readings lost max %.1f s"
      % (cuts, intact, cuts, clean, cuts, continued, cuts, len(reused), worst_points, median_points, worst_readings))
ok = not failures and not reused and worst_points <= LIMIT and worst_readings <= LIMIT
sys.exit(0 if ok else 1)
