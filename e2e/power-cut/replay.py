"""Every crash state of a short ride (scripts/power-cut): the state disk's writes, recorded with their flushes by
dm-log-writes in the VM, replayed onto the disk as it was before the ride, and the disk checked at each flush
point (and at a sample of the writes between): the file system clean once its journal is replayed, both
databases intact, `ridegate rides list` working, and nothing committed before a completed flush gone later — the
ride's points and the spool's readings (no broker: none leave it) never fewer, no topic's `seq` lower.

    replay.py BASE_IMAGE LOG_IMAGE RIDEGATE WORK_DIR

The log's format is the kernel's (drivers/md/dm-log-writes.c): a super block in sector 0, then per entry a
header sector (sector, nr_sectors, flags, data_len; little-endian) followed by its data.
"""
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys

FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
MAGIC = 0x6A736677736872
BETWEEN = 25  # check every 25th write between flushes too

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


def counts(directory):
    """The ride log's points, the spool's readings, and each topic's restart seq (the highest row or bound). A file
    made but not yet laid out (a cut as it was created) holds none."""
    points = readings = 0
    seqs = {}

    def tables(db):
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    rides = os.path.join(directory, "rides.sqlite")
    if os.path.exists(rides):
        db = sqlite3.connect(rides)
        if "points" in tables(db):
            points = db.execute("SELECT count(*) FROM points").fetchone()[0]
    spool = os.path.join(directory, "spool.sqlite")
    if os.path.exists(spool):
        db = sqlite3.connect(spool)
        present = tables(db)
        if "spool" in present:
            readings = db.execute("SELECT count(*) FROM spool").fetchone()[0]
        for table in ("sequence", "sequence_bound"):
            if table in present:
                for topic, value in db.execute("SELECT topic, value FROM %s WHERE topic <> ''" % table):
                    seqs[topic] = max(seqs.get(topic, 0), value)
    return points, readings, seqs


def check(label):
    """The disk as a power cut at this point would leave it: what a rider's Pi would find, and what it holds."""
    state = os.path.join(work, "state.img")
    shutil.copyfile(image, state)
    problems = []
    run("e2fsck", "-fy", state)  # the journal replayed, as a mount would
    if run("e2fsck", "-fn", state).returncode != 0:
        problems.append("e2fsck")
    files = os.path.join(work, "files")
    shutil.rmtree(files, ignore_errors=True)
    os.makedirs(files)
    run("debugfs", "-R", "rdump / " + files, state)
    root = files
    for name in ("rides.sqlite", "spool.sqlite"):
        path = os.path.join(root, name)
        if os.path.exists(path):
            verdict = sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                problems.append("%s: %s" % (name, verdict))
    if os.path.exists(os.path.join(root, "rides.sqlite")):
        listed = run(ridegate, "rides", "list", "--json", "--state-directory", root)
        if listed.returncode != 0:
            problems.append("rides list: " + listed.stdout.strip()[-200:])
    return problems, counts(root)


flushes = checked = 0
failures = []
best = (0, 0, {})
with open(log_path, "rb") as log, open(image, "r+b") as disk:
    for index, (offset, length, flags, data, mark) in enumerate(entries(log)):
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
        problems, (points, readings, seqs) = check("entry %d" % index)
        checked += 1
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
            failures.append("entry %d (%s): %s" % (index, "flush" if durable else "between", "; ".join(problems)))

for failure in failures[:10]:
    print("replay: " + failure)
print("power-cut replay: %d flush points, %d states checked, %d with a problem; at the last flush %d points, %d readings, seq %s"
      % (flushes, checked, len(failures), best[0], best[1], json.dumps(best[2], sort_keys=True)))
sys.exit(0 if flushes > 0 and not failures and best[0] > 0 and best[1] > 0 else 1)
