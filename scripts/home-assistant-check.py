"""What Home Assistant made of the demo (run by scripts/home-assistant-check with HA's own Python): its entity
registry, its recorder database and its log. Prints what it found; exits 1 on any failure."""
import json, pathlib, sqlite3, sys

work, minutes, version = pathlib.Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
config = work / "config"
failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

registry = json.loads((config / ".storage" / "core.entity_registry").read_text())["data"]
entities = {e["entity_id"]: e for e in registry["entities"] if e["platform"] == "mqtt"}
deleted = {e["entity_id"] for e in registry.get("deleted_entities", []) if e["platform"] == "mqtt"}
expected = {  # entity id -> unit (None: no unit)
    "binary_sensor.ridegate_bike_online": None, "sensor.ridegate_bike_heart_rate": "bpm", "sensor.ridegate_bike_zone": None,
    "sensor.ridegate_bike_speed": "km/h", "sensor.ridegate_bike_gps_state": None, "device_tracker.ridegate_bike_position": None,
    "binary_sensor.ridegate_bike_riding": None, "sensor.ridegate_bike_distance": "km", "sensor.ridegate_bike_moving_time": "s",
    "sensor.ridegate_bike_elapsed_time": "s", "sensor.ridegate_bike_average_speed": "km/h", "sensor.ridegate_bike_maximum_speed": "km/h",
    "sensor.ridegate_bike_climb": "m", "sensor.ridegate_bike_average_heart_rate": "bpm", "sensor.ridegate_bike_average_power": "W",
    "sensor.ridegate_bike_normalized_power": "W", "sensor.ridegate_bike_work": "kJ", "sensor.ridegate_bike_last_ride": "km",
    "sensor.ridegate_bike_sunrise": None, "sensor.ridegate_bike_sunset": None, "sensor.ridegate_bike_civil_dawn": None,
    "sensor.ridegate_bike_civil_dusk": None, "sensor.ridegate_bike_time_to_sunset": "s", "binary_sensor.ridegate_bike_dark_soon": None,
    "sensor.ridegate_bike_spool_depth": None, "sensor.ridegate_bike_spool_dropped": None, "sensor.ridegate_bike_broker_connections": None,
    "sensor.ridegate_bike_sensor_reconnects": None, "sensor.ridegate_bike_gps_time_rejected": None, "sensor.ridegate_bike_ride_log_size": "B",
    "sensor.ridegate_bike_clock_offset": "s",
    "binary_sensor.ridegate_bike_strap_demo_strap_connected": None, "sensor.ridegate_bike_strap_demo_strap_battery": "%",
    "binary_sensor.ridegate_bike_sensor_demo_power_connected": None, "sensor.ridegate_bike_sensor_demo_power_power": "W",
    "sensor.ridegate_bike_sensor_demo_power_power_3s": "W", "sensor.ridegate_bike_sensor_demo_power_cadence": "rpm",
    "sensor.ridegate_bike_sensor_demo_power_wheel_speed": "km/h", "sensor.ridegate_bike_sensor_demo_power_battery": "%",
}
seen = set(entities) | deleted
missing = sorted(set(expected) - seen)
check(not missing, f"every documented entity was created ({len(expected)}); missing: {missing}")
extra = sorted(seen - set(expected))
check(not extra, f"no entity beyond the documented ones; extra: {extra}")

db = sqlite3.connect(config / "home-assistant_v2.db")
def states(entity_id):
    return db.execute("""SELECT s.state, a.shared_attrs, s.last_updated_ts FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id
                         LEFT JOIN state_attributes a ON s.attributes_id = a.attributes_id WHERE m.entity_id = ? ORDER BY s.state_id""",
                      (entity_id,)).fetchall()
for entity_id, unit in sorted(expected.items()):
    rows = states(entity_id)
    units = {json.loads(a or "{}").get("unit_of_measurement") for _, a, _ in rows if _ not in (None, "unavailable", "unknown")}
    units.discard(None)
    if unit and rows:
        check(units <= {unit}, f"{entity_id}: unit {sorted(units)} (expected {unit})")
killed = (work / "killed-at").read_text().strip()
import datetime
killed_ts = datetime.datetime.fromisoformat(killed).replace(tzinfo=datetime.timezone.utc).timestamp()
def state_at(entity_id, ts):
    rows = [r for r in states(entity_id) if r[2] <= ts]
    return rows[-1] if rows else None
online = state_at("binary_sensor.ridegate_bike_online", killed_ts)
check(online is not None and online[0] == "off", f"online after the gateway died: {online and online[0]}")
tracker = state_at("device_tracker.ridegate_bike_position", killed_ts)
attrs = json.loads(tracker[1] or "{}") if tracker else {}
check(tracker is not None and tracker[0] not in ("unavailable", "unknown") and "latitude" in attrs,
      f"tracker after the gateway died: {tracker and tracker[0]}, latitude {attrs.get('latitude')}, longitude {attrs.get('longitude')}")
# Home Assistant's owntracks integration reads the bike's owntracks/ridegate/bike as it reads a phone: a device
# tracker at the last location the bike published (left retained when it died).
owntracks_path = work / "owntracks-retained.json"
if owntracks_path.exists() and owntracks_path.read_text().strip():
    published = json.loads(owntracks_path.read_text().splitlines()[0])
    follower = state_at("device_tracker.ridegate_bike", killed_ts)
    seen_at = json.loads(follower[1] or "{}") if follower else {}
    check(follower is not None and seen_at.get("latitude") == published.get("lat") and seen_at.get("longitude") == published.get("lon"),
          f"owntracks: device_tracker.ridegate_bike at the last location published ({published.get('lat')}, {published.get('lon')}): "
          f"{follower and follower[0]}, {seen_at.get('latitude')}, {seen_at.get('longitude')}, accuracy {seen_at.get('gps_accuracy')}")
else:
    check(False, "owntracks: the bike left no OwnTracks location retained")
speed = [r[0] for r in states("sensor.ridegate_bike_speed") if r[0] not in (None, "", "unavailable", "unknown")]
check(bool(speed) and all(0 <= float(v) < 80 for v in speed), f"speed in km/h: {len(speed)} states, max {max(map(float, speed)) if speed else None}")
riding = [r[0] for r in states("binary_sensor.ridegate_bike_riding") if r[0]]
check("on" in riding, f"riding was on during the ride: {sorted(set(riding))}")

# Recorder rows while riding: every state row of the demo's entities during the first run, per hour (from its
# first heart rate; the short run before it only announced the bike).
ride_started = float((work / "ride-started-at").read_text()) if (work / "ride-started-at").exists() else 0
first = db.execute("""SELECT MIN(s.last_updated_ts) FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id
                      WHERE m.entity_id = 'sensor.ridegate_bike_heart_rate' AND s.state NOT IN ('unavailable', 'unknown')
                      AND s.last_updated_ts >= ?""", (ride_started,)).fetchone()[0]
per_entity = db.execute("""SELECT m.entity_id, COUNT(*) FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id
                           WHERE m.entity_id LIKE '%ridegate_bike%' AND s.last_updated_ts BETWEEN ? AND ? GROUP BY m.entity_id
                           ORDER BY 2 DESC""", (first or 0, killed_ts)).fetchall()
span_h = max(1e-6, (killed_ts - (first or killed_ts)) / 3600)
total = sum(n for _, n in per_entity)
print(f"recorder: {total} state rows in {span_h * 60:.1f} riding minutes = {total / span_h:.0f} rows per riding hour; busiest: "
      + ", ".join(f"{e.split('.', 1)[1].replace('ridegate_bike_', '')} {n / span_h:.0f}/h" for e, n in per_entity[:6]))

# An upgrade (--upgrade-from): the earlier build's entities kept by the device message, history continued.
if (work / "registry-before.json").exists():
    def ridegate_entries(path):
        data = json.loads(path.read_text())["data"]
        return {e["unique_id"]: (e["entity_id"], e["id"]) for e in data["entities"] if e["platform"] == "mqtt" and e["unique_id"].startswith("ridegate_bike")}
    before, after = ridegate_entries(work / "registry-before.json"), ridegate_entries(work / "registry-after.json")
    changed = sorted(u for u in before if after.get(u) != before[u])
    check(len(before) >= 30 and not changed,
          f"upgrade: the earlier build's {len(before)} entities kept with the same entity ids and registry entries; changed: {changed[:5]}")
    check(not (set(after) - set(before)), f"upgrade: no entity beyond the earlier build's: {sorted(set(after) - set(before))[:5]}")
    upgraded = float((work / "upgraded-at").read_text())
    continued = [e for e in ("sensor.ridegate_bike_speed", "sensor.ridegate_bike_heart_rate", "sensor.ridegate_bike_sensor_demo_power_power_3s",
                             "sensor.ridegate_bike_strap_demo_strap_battery", "binary_sensor.ridegate_bike_online")
                 if any(r[2] < upgraded for r in states(e)) and any(r[2] > upgraded and r[0] not in ("unavailable", "unknown") for r in states(e))]
    check(len(continued) == 5, f"upgrade: history before and live states after under the same entity ids: {continued}")
    retained = [line.split(" ", 1)[0] for line in (work / "retained-upgrade.txt").read_text().splitlines() if line.strip()]
    check(retained == ["homeassistant/device/bike/config"], f"upgrade: only the device message retained, no per-entity config: {retained[:5]}")

log = (config / "home-assistant.log").read_text(errors="replace")

# The ride on the lock screen (deploy/homeassistant/ride-live-activity.yaml), as the phone's push relay received it.
def lock_screen():
    pushes = [json.loads(line) for line in (work / "pushes.jsonl").read_text().splitlines()] if (work / "pushes.jsonl").exists() else []
    check(bool(pushes) and all(p["status"] == 201 for p in pushes),
          f"lock screen: the relay took every push ({len(pushes)}): statuses {sorted({p['status'] for p in pushes})}")
    check(all(p["body"].get("push_token") == "ridegatecheck:phone-token" and p["body"].get("registration_info", {}).get("webhook_id")
              for p in pushes), "lock screen: every push carries the phone's token and webhook id")
    data = lambda p: p["body"].get("data") or {}
    live = [p for p in pushes if data(p).get("live_update") is True]
    ends = [p for p in pushes if p["body"].get("message") == "clear_notification"]
    totals = [p for p in pushes if p["body"].get("title") == "Ride over"]
    tags = {data(p).get("tag") for p in live}
    check(len(live) >= 2 and len(tags) == 1, f"lock screen: {len(live)} live updates, all with one tag: {sorted(map(str, tags))}")
    check(len(ends) == 1 and data(ends[0]).get("tag") in tags and all(p["received"] < ends[0]["received"] for p in live),
          f"lock screen: one end (clear_notification with the tag) after the last update: {len(ends)}")
    check(len(totals) == 1 and " km" in totals[0]["body"].get("message", ""),
          f"lock screen: the ride's totals after the end: {[p['body'].get('message') for p in totals]}")
    ride_start = float((work / "ride-started-at").read_text())
    check(all(data(p).get("chronometer") is True and abs(data(p).get("when", 0) - ride_start) < 90 and data(p).get("progress_max") == 5
              and str(data(p).get("color", "")).startswith("#") for p in live),
          f"lock screen: every update a chronometer from the ride's start ({int(ride_start)}), the zone of 5 and its colour: "
          + str(sorted({(data(p).get('when'), data(p).get('progress_max'), data(p).get('color')) for p in live})[:4]))
    automation = json.loads((config / "automations.yaml").read_text())[0]["use_blueprint"]["input"]
    gap = automation["minimum_gap_seconds"]
    intervals = [b["received"] - a["received"] for a, b in zip(live, live[1:])]
    check(all(i >= gap - 1 for i in intervals), f"lock screen: updates at least {gap} s apart (at most {3600 // gap} an hour): "
          f"shortest {min(intervals, default=0):.0f} s")
    # The zone sensor's states: a number, or None while it has none (no strap yet, or the gateway away).
    history = [(ts, int(state) if state and state.isdigit() else None) for state, _, ts in states("sensor.ridegate_bike_zone")]
    zones = [(t, z) for t, z in history if z is not None]
    def zone_at(ts):
        before = [z for t, z in history if t <= ts]
        return before[-1] if before else None
    shown = [(p["received"], int(p["body"]["message"].split(" ")[1]) if p["body"]["message"].startswith("Zone ") else None) for p in live]
    # (HA renders the update a moment before the relay has it: a zone of the second before it arrived.)
    wrong = [(round(t), z, zone_at(t)) for t, z in shown
             if z != zone_at(t - 1) and z not in {zone for ts, zone in history if t - 1 < ts <= t}]
    check(not wrong, f"lock screen: each update shows the zone of its moment, or none while there is none "
          f"({sum(z is not None for _, z in shown)} with a zone); wrong: {wrong[:3]}")
    # Every zone that lasted longer than the gap (and 15 s of slack) was on the lock screen within that time.
    unshown = []
    for (t, z), (t_next, _) in zip(zones, zones[1:] + [(ends[0]["received"] if ends else t, None)]):
        if live[0]["received"] <= t and t_next - t > gap + 15:
            on_screen = [s for s_t, s in shown if s_t <= t + gap + 15]
            if not on_screen or on_screen[-1] != z:
                unshown.append((round(t - ride_start), z))
    check(not unshown, f"lock screen: every zone change shown within {gap + 15} s ({len(zones)} zone states); not shown: {unshown[:3]}")
    print(f"lock screen: {len(live)} updates (zones {[z for _, z in shown]}), 1 end, totals {totals[0]['body'].get('message') if totals else None!r}")
if tuple(int(x) for x in version.split(".")[:2]) >= (2026, 7):
    lock_screen()
else:
    print(f"note the lock-screen blueprint needs Home Assistant 2026.7 or later: not checked on {version}")
automation_problems = [line for line in log.splitlines() if ("WARNING" in line or "ERROR" in line)
                       and any(word in line.lower() for word in ("blueprint", "template", "automation", "mobile_app", "lock screen"))]
check(not automation_problems, f"no blueprint, template, automation or mobile_app warning or error in HA's log ({len(automation_problems)}): "
      + " | ".join(automation_problems[:3]))
problems = [line for line in log.splitlines()
            if ("WARNING" in line or "ERROR" in line) and ("mqtt" in line.lower() or "ridegate" in line or "owntracks" in line)]
# The demo's orderly stop clears its retained OwnTracks location with an empty retained message (how a retained
# topic is cleared; OwnTracks' own recorder documents the same), and the owntracks integration logs an error for
# any payload that is not JSON: Home Assistant's reaction to the clearing, said, not failed.
cleared = [line for line in problems if "owntracks" in line and line.rstrip().endswith("Unable to parse payload as JSON:")]
if cleared:
    print(f"note Home Assistant's owntracks integration logged {len(cleared)} error(s) for the empty message that cleared the demo's location")
problems = [line for line in problems if line not in cleared]
# Before 2026.11, removing a device (the demo's orderly stop) makes Home Assistant itself publish an empty
# retained payload on the device topic for each entity that is disabled by default (its registry hook for entities
# it did not add), and then warn about each one it hears: its own messages, not ridegate's. Said, not failed.
own_echo = "No device components to cleanup for bike"
if tuple(int(x) for x in version.split(".")[:2]) < (2026, 11):
    echoes = [line for line in problems if own_echo in line]
    if echoes:
        print(f"note Home Assistant {version} warned {len(echoes)} times about its own empty device messages after the demo's device was removed")
    problems = [line for line in problems if own_echo not in line]
check(not problems, f"no MQTT or ridegate warning or error in HA's log ({len(problems)}): " + " | ".join(problems[:5]))
retained = [line for line in (work / "retained.txt").read_text().splitlines() if line.strip()]
check(not retained, f"nothing of the demo retained after its orderly stop ({len(retained)}): {retained[:5]}")
after_stop = sorted(e for e in expected if e in entities)
check(not after_stop, f"the demo's entities removed at its orderly stop; left: {after_stop[:5]}")
print(f"home-assistant-check: Home Assistant {version}: {'passed' if not failures else str(len(failures)) + ' failed'}")
sys.exit(1 if failures else 0)
