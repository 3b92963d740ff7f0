"""Fills a ridegate spool with N readings (a long ride offline) for scripts/bench's replay measurement, in the
spool's current schema (SQLiteSpool.schema, version 2), so the bench times the replay, not an upgrade."""
import sqlite3
import sys

path, count = sys.argv[1], int(sys.argv[2])
db = sqlite3.connect(path)
db.executescript("""
PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS spool (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sequence (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
""")
rows = []
for i in range(count):
    if i % 11 == 0:
        rows.append(("heart_rate", '{"ts":"2026-06-21T16:00:00.000Z","seq":%d,"strap":"s","bpm":140,"zone":3,"contact":"detected","rr_ms":[428.7],"energy_kj":12,"clock_trusted":true}' % i, 1))
    else:
        rows.append(("gps", '{"ts":"2026-06-21T16:00:00.000Z","seq":%d,"mode":"3d","lat":40.0149992,"lon":-105.2705025,"alt_m":1654.9,"speed_mps":7.31,"track_deg":276.6,"sats":9,"hdop":0.9,"distance_m":1234.5,"moving":true}' % i, 1))
db.executemany("INSERT INTO spool (topic, payload, qos) VALUES (?, ?, ?)", rows)
db.execute("INSERT OR REPLACE INTO sequence (topic, value) VALUES ('', (SELECT max(id) FROM spool))")  # the highest id given out
db.commit()
db.execute("PRAGMA user_version = 2")
db.commit()
db.close()
