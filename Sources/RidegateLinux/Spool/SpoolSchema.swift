/// The spool's layout (`spool.sqlite`), one step per version (`SQLiteSchema`); the last step's result is also made
/// in one go for a new file (`current`).
enum SpoolSchema {
    /// The schema, one step per version (`SQLiteSchema`). Version 1 is the layout of 0.x releases, which
    /// left `user_version` at 0: its step creates the tables only where they do not exist, adopting those files.
    /// Version 2 drops AUTOINCREMENT: the highest id moves from `sqlite_sequence` to the `sequence` table's
    /// `highestIDRow` (the table is rebuilt; `sqlite_sequence` itself cannot be dropped and stays, unused).
    /// Version 4 adds each topic's `seq` bound (`SpoolDurability`).
    static let steps = ["""
        CREATE TABLE IF NOT EXISTS spool (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL,
                                          payload TEXT NOT NULL, qos INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS sequence (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """, """
        CREATE TABLE spool_v2 (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL);
        INSERT INTO spool_v2 (id, topic, payload, qos) SELECT id, topic, payload, qos FROM spool ORDER BY id;
        INSERT OR REPLACE INTO sequence (topic, value) VALUES ('\(SQLiteSpool.highestIDRow)',
            max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'spool'), 0), coalesce((SELECT max(id) FROM spool), 0)));
        DROP TABLE spool;
        ALTER TABLE spool_v2 RENAME TO spool;
        """, """
        ALTER TABLE spool ADD COLUMN retain INTEGER NOT NULL DEFAULT 0;
        """, """
        CREATE TABLE sequence_bound (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """]

    /// What the steps end at, for a new file in one go (no `sqlite_sequence`: nothing here has AUTOINCREMENT).
    static let current = """
        CREATE TABLE spool (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload TEXT NOT NULL, qos INTEGER NOT NULL,
                            retain INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE sequence (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
        CREATE TABLE sequence_bound (topic TEXT PRIMARY KEY, value INTEGER NOT NULL);
        """
}
