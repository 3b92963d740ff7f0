"""Every crash state of a short ride (scripts/power-cut): the state disk's writes, recorded with their flushes by
dm-log-writes in the VM, replayed onto the disk as it was before the ride, and the disk checked at each flush
point (and at a sample of the writes between), as a cut there would leave it:
- the file system clean by `e2fsck -fn` once its journal is replayed (and nothing else repaired first), both
  databases intact, `ridegate rides list` working;
- what the gateway had committed before the last mark is there: the guest marks the log each second with its
  clock and the ride log's points as a reader then saw them (count, newest time). Every state after a mark holds
  at least those points (each batch's commit is synced before it returns); and every state holds the spool's GPS
  readings of the epochs the ride log had reached by a mark SPOOL_SYNC seconds earlier (the spool syncs at least
  every 5 s), with the `seq` rows at or above theirs — the final state (the ride's every write) says which
  readings those are;
- nothing a completed flush made durable gone at a later one (points, readings, each topic's restart `seq`);
- the ride's end (the bike stands past `new_ride_after`): a ride closed in a state is queued for upload in that
  state, and every file a state's ride log says was exported is there and whole (the final state's bytes); a
  ride file in the export directory is never a part of one.

    replay.py BASE_IMAGE LOG_IMAGE RIDEGATE WORK_DIR

The log's format is the kernel's (drivers/md/dm-log-writes.c): a super block in sector 0, then per entry a
header sector (sector, nr_sectors, flags, data_len; little-endian) followed by its data; a mark's data is its text.
"""
import datetime
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys

FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
MAGIC = 0x6A736677736872
BETWEEN = 25  # check every 25th write between flushes too
SPOOL_SYNC = 8.0  # seconds: the spool's sync interval (5 s), an epoch, and the VM's pace

base, log_path, ridegate, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
image = os.path.join(work, "replaying.img")
shutil.copyfile(base, image)


def entries(log):
    magic, version, count, size = struct.unpack_from("<QQQI", log.read(4096), 0)
    if magic != MAGIC or version != 1:
        sys.exit("replay: %s is not a dm-log-writes log (magic %x, version %d)" % (log_path, magic, version))
    offset = size
    for _ in range(count):
        log.seek(offset)
        header = log.read(size)
        sector, sectors, flags, length = struct.unpack_from("<QQQQ", header, 0)
        if flags == 0 and sectors == 0:
            return
        offset += size
        data = b""
        if not flags & (MARK | DISCARD) and sectors:
            log.seek(offset)
            data = log.read(sectors * size)
            offset += sectors * size
        yield sector * size, sectors * size, flags, data, header[32:32 + length] if flags & MARK else b""


def run(*command):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def tables(db):
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def contents(directory):
    """The ride log's moving points' times (a ride's end drops its standing tail), the spool's GPS readings as
    (time, seq), and each topic's restart seq (the
    highest row or bound). A file made but not yet laid out (a cut as it was created) holds none."""
    points, readings, seqs = [], [], {}
    rides = os.path.join(directory, "rides.sqlite")
    if os.path.exists(rides):
        db = sqlite3.connect(rides)
        if "points" in tables(db):
            points = [t for (t,) in db.execute("SELECT time FROM points WHERE moving = 1 ORDER BY time")]
    spool = os.path.join(directory, "spool.sqlite")
    if os.path.exists(spool):
        db = sqlite3.connect(spool)
        present = tables(db)
        if "spool" in present:
            for topic, payload in db.execute("SELECT topic, payload FROM spool ORDER BY id"):
                body = json.loads(payload)
                readings.append((seconds(body["ts"]) if is_gps(topic) else None, topic, body.get("seq")))
        for table in ("sequence", "sequence_bound"):
            if table in present:
                for topic, value in db.execute("SELECT topic, value FROM %s WHERE topic <> ''" % table):
                    seqs[topic] = max(seqs.get(topic, 0), value)
    return points, readings, seqs


def is_gps(topic):
    return topic == "gps" or topic.endswith("/gps")


def seconds(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def check(label):
    """The disk as a power cut at this point would leave it: what a rider's Pi would find, and what it holds. The
    work is done on a copy, from which the files are read out without mounting."""
    state = os.path.join(work, "state.img")
    shutil.copyfile(image, state)
    problems = []
    run("e2fsck", "-E", "journal_only", "-y", state)  # the journal replayed, as a mount would, and nothing else
    fsck = run("e2fsck", "-fn", state)
    if fsck.returncode != 0:
        problems.append("e2fsck: " + " / ".join(fsck.stdout.strip().splitlines()[-3:]))
    files = os.path.join(work, "files")
    shutil.rmtree(files, ignore_errors=True)
    os.makedirs(files)
    run("debugfs", "-R", "rdump / " + files, state)
    for name in ("rides.sqlite", "spool.sqlite"):
        path = os.path.join(files, name)
        if os.path.exists(path):
            verdict = sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                problems.append("%s: %s" % (name, verdict))
    if os.path.exists(os.path.join(files, "rides.sqlite")):
        listed = run(ridegate, "rides", "list", "--json", "--state-directory", files)
        if listed.returncode != 0:
            problems.append("rides list: " + listed.stdout.strip()[-200:])
    try:
        held = contents(files)
    except (sqlite3.Error, ValueError, KeyError) as error:
        problems.append("unreadable: %s" % error)
        held = ([], [], {})
    return problems, held, files


RIDE_FILE = re.compile(r".*-ride-(\d+)\.(fit|gpx|tcx)$")


def ride_files(directory):
    """The ride files in the export directory (the state directory here): (ride id, format) -> bytes."""
    found = {}
    for name in os.listdir(directory):
        match = RIDE_FILE.match(name)
        if match:
            with open(os.path.join(directory, name), "rb") as f:
                found[(int(match.group(1)), match.group(2))] = f.read()
    return found


def ending(directory):
    """The rides closed, which of them are queued for upload, and the formats each is marked exported in."""
    path = os.path.join(directory, "rides.sqlite")
    if not os.path.exists(path):
        return set(), set(), {}
    db = sqlite3.connect(path)
    present = tables(db)
    if "rides" not in present:
        return set(), set(), {}
    closed = {ride for (ride,) in db.execute("SELECT id FROM rides WHERE closed = 1")}
    queued = {ride for (ride,) in db.execute("SELECT DISTINCT ride FROM uploads")} if "uploads" in present else set()
    exported = {ride: {f for f in text.split(",") if f} for ride, text in db.execute("SELECT id, exported FROM rides")}
    return closed, queued, exported


def end_problems(directory, final_files):
    """A ride's end as a cut would find it: queued once closed, its files whole or not there."""
    problems = []
    closed, queued, exported = ending(directory)
    for ride in sorted(closed - queued):
        problems.append("ride %d closed, its upload not queued" % ride)
    files = ride_files(directory)
    for ride, formats in exported.items():
        for fmt in sorted(formats):
            if (ride, fmt) not in files:
                problems.append("ride %d marked exported as %s, no file" % (ride, fmt))
    for key, data in files.items():
        if data != final_files.get(key):
            problems.append("ride %d's %s file is not whole (%d bytes, %d at the end)" % (key[0], key[1], len(data), len(final_files.get(key, b""))))
    return problems, bool(closed)


def gps_seq(readings, through):
    """The GPS readings up to `through` and the highest seq among them."""
    kept = [(t, seq) for t, topic, seq in readings if t is not None and t <= through]
    return len(kept), max((seq for _, seq in kept if seq is not None), default=0)


def parse_mark(text):
    """"t<guest time>,p<points>,m<newest point's time>", as the guest writes them; None for another mark (the
    kernel's own "dm-log-writes-end")."""
    try:
        fields = dict((word[0], float(word[1:])) for word in text.split(","))
        return fields["t"], int(fields["p"]), fields["m"]
    except (ValueError, KeyError, IndexError):
        return None


def shortfall(held, final, marks):
    """What the state lacks of what the gateway had committed by the marks before it."""
    if not marks:
        return []
    points, readings, seqs = held
    problems = []
    _, seen_points, _ = marks[-1]
    if len(points) < seen_points:
        problems.append("points %d, %d committed before the last mark" % (len(points), seen_points))
    earlier = [m for m in marks if m[0] <= marks[-1][0] - SPOOL_SYNC]
    if earlier and earlier[-1][2] > 0:
        epoch = earlier[-1][2]
        owed, seq_owed = gps_seq(final[1], epoch)
        count, _ = gps_seq(readings, epoch)
        if count < owed:
            problems.append("GPS readings %d of the %d through the epoch the ride log had %.0f s before" % (count, owed, SPOOL_SYNC))
        gps = max((v for t, v in seqs.items() if is_gps(t)), default=0)
        if gps < seq_owed:
            problems.append("gps seq row %d below %d, a reading's kept by then" % (gps, seq_owed))
    return problems


# The final state first: the ride's every write, from which what was owed at each mark is read.
with open(log_path, "rb") as log, open(image, "r+b") as disk:
    for offset, length, flags, data, mark in entries(log):
        disk.seek(offset)
        if flags & DISCARD:
            disk.write(b"\0" * length)
        elif data:
            disk.write(data)
final_problems, final, final_directory = check("the end")
final_files = ride_files(final_directory)
final_closed, final_queued, final_exported = ending(final_directory)
ended = [r for r in final_closed if r in final_queued and {"fit", "gpx"} <= final_exported.get(r, set())]
if final_problems or not final[0] or not final[1] or not ended:
    sys.exit("replay: the ride's final state is not a ride to measure against: %s (%d points, %d readings, "
             "rides closed %s, queued %s, exported %s)" % ("; ".join(final_problems) or "ok", len(final[0]), len(final[1]),
                                                          sorted(final_closed), sorted(final_queued), final_exported))
shutil.copyfile(base, image)

flushes = checked = after_end = 0
failures, marks = [], []
best = (0, 0, {})
with open(log_path, "rb") as log, open(image, "r+b") as disk:
    for index, (offset, length, flags, data, mark) in enumerate(entries(log)):
        if flags & MARK:
            parsed = parse_mark(mark.decode("ascii", "replace").strip("\0"))
            if parsed:
                marks.append(parsed)
            continue
        if flags & DISCARD:
            disk.seek(offset)
            disk.write(b"\0" * length)
        elif data:
            disk.seek(offset)
            disk.write(data)
        durable = flags & (FLUSH | FUA)
        flushes += 1 if durable else 0
        if not durable and index % BETWEEN:
            continue
        disk.flush()
        problems, held, directory = check("entry %d" % index)
        checked += 1
        # The ride's end: closed and queued in one state, its files whole.
        more, closed = end_problems(directory, final_files)
        problems += more
        after_end += closed
        # Whatever the state, what was committed before the marks must be in it.
        problems += shortfall(held, final, marks)
        points, readings, seqs = len(held[0]), len(held[1]), held[2]
        if durable:
            # What a completed flush made durable must be there at every later flush.
            if points < best[0]:
                problems.append("points %d, %d at an earlier flush" % (points, best[0]))
            if readings < best[1]:
                problems.append("readings %d, %d at an earlier flush" % (readings, best[1]))
            lower = [t for t, v in best[2].items() if seqs.get(t, 0) < v]
            if lower:
                problems.append("seq lower for %s" % lower)
            best = (max(best[0], points), max(best[1], readings), {t: max(v, best[2].get(t, 0)) for t, v in {**best[2], **seqs}.items()})
        if problems:
            failures.append("entry %d (%s, %d marks): %s" % (index, "flush" if durable else "between", len(marks), "; ".join(problems)))

for failure in failures[:10]:
    print("replay: " + failure)
owing = sum(1 for m in marks if m[1] > 0)
print("replay: %d flush points, %d states checked, %d with a problem; %d marks (%d after points were committed); "
      "%d states after the ride's end; at the end %d moving points, %d readings, files %s, seq %s"
      % (flushes, checked, len(failures), len(marks), owing, after_end, len(final[0]), len(final[1]),
         " ".join("%s %d B" % (fmt, len(data)) for (_, fmt), data in sorted(final_files.items())), json.dumps(final[2], sort_keys=True)))
# Marks that saw committed points are what make the comparison with the gateway's commits a test.
sys.exit(0 if flushes > 0 and owing >= 5 and after_end > 0 and not failures else 1)
