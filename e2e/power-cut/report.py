"""What the power cuts did (scripts/power-cut): reads the run's folder — each boot's console, what the host fed
the GPS before each cut, every message the broker got — and prints one line per cut and the summary line.
Exit 0 only if every check held, no seq was reused, the losses are at most 10 s and the spool held readings at
the cuts (the broker was away then: what it had not acknowledged was the spool's to keep).

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


def fed_seconds(cut):
    return [int(line.split()[1]) for line in lines(os.path.join(run, "fed-%d.log" % cut)) if line.startswith("FED ")]


def longest_missing(fed, received):
    """The longest run of epochs the host wrote that no GPS reading the broker ever got carries, from the ride's
    first received epoch (before it the gateway had not opened the UART) to the last written before the cut."""
    got = [second for second in fed if second in received]
    if not got:
        return None
    longest = run_length = 0
    for second in fed:
        if second < got[0]:
            continue
        run_length = 0 if second in received else run_length + 1
        longest = max(longest, run_length)
    return float(longest)


# Every message the broker got, across every boot (the last one sends what the last cut left spooled): (topic,
# seq) -> payloads; the GPS readings' times, in whole seconds as the host wrote them.
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
        gps_times.append(round(seconds(body["ts"])))
reused = sorted(key for key, texts in payloads.items() if len(texts) > 1)

received_epochs = set(gps_times)
intact = clean = continued = 0
points_lost, readings_lost, spooled, failures = [], [], [], []
for cut in range(1, cuts + 1):
    after = console(cut + 1 if cut < cuts else "final")
    written = fed_seconds(cut)
    fed = float(written[-1]) if written else None
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
    unread = longest_missing(written, received_epochs)
    held = after.get("PC_SPOOLED", "").strip()
    if lost is not None:
        points_lost.append(lost)
    if unread is not None:
        readings_lost.append(unread)
    if held.isdigit():
        spooled.append(int(held))
    print("cut %d: fsck %s, rides.sqlite %s, spool.sqlite %s, rides %s%s, export %s, last point %s s before the cut, "
          "readings never received %s s at most, %s spooled at the cut"
          % (cut, after.get("PC_FSCK", "?"), after.get("PC_INTEGRITY_rides", "?"), after.get("PC_INTEGRITY_spool", "?"),
             len(rides) if rides is not None else rides_text[:80], "" if started else " (gateway did not start again)",
             after.get("PC_EXPORT", "-"), "%.1f" % lost if lost is not None else "?", "%.0f" % unread if unread is not None else "?",
             held or "?"))
    if not (ok_db and ok_fsck and ok_ride) or lost is None or unread is None or not held.isdigit():
        failures.append(cut)

# The sensors' readings the broker got (the seq check above covers their topics too), beside the GPS's.
kinds = {}
for (topic, _seq) in payloads:
    leaf = topic.rsplit("/", 1)[-1]
    if leaf in ("gps", "heart_rate", "power", "speed_cadence"):
        kinds[leaf] = kinds.get(leaf, 0) + 1
print("readings received: " + ", ".join("%s %d" % (k, kinds.get(k, 0)) for k in ("gps", "heart_rate", "power", "speed_cadence")))
for key in reused[:5]:
    print("seq reused: %s seq %s: %s" % (key[0], key[1], sorted(payloads[key])))
worst_points = max(points_lost) if points_lost else float("nan")
median_points = statistics.median(points_lost) if points_lost else float("nan")
worst_readings = max(readings_lost) if readings_lost else float("nan")
median_spooled = statistics.median(spooled) if spooled else 0
print("power-cut: %d cuts, databases intact %d/%d, fsck clean %d/%d, rides continued %d/%d, seq reused %d, "
      "points lost max %.1f s (median %.1f s), readings lost max %.1f s (spooled at the cut median %g)"
      % (cuts, intact, cuts, clean, cuts, continued, cuts, len(reused), worst_points, median_points, worst_readings, median_spooled))
# The spool must have held readings at the cuts: else `readings lost` measured nothing of it.
ok = not failures and not reused and worst_points <= LIMIT and worst_readings <= LIMIT and median_spooled > 0
sys.exit(0 if ok else 1)
