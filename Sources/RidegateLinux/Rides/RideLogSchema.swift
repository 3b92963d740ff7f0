/// The ride log's layout (`rides.sqlite`), one step per version (`SQLiteSchema`); the last step's result is
/// also made in one go for a new file (`current`).
enum RideLogSchema {
    static let steps = [
        """
        CREATE TABLE rides (id INTEGER PRIMARY KEY AUTOINCREMENT, start REAL NOT NULL, end REAL NOT NULL,
                            points INTEGER NOT NULL DEFAULT 0, distance REAL NOT NULL DEFAULT 0,
                            moving REAL NOT NULL DEFAULT 0, exported TEXT NOT NULL DEFAULT '');
        CREATE TABLE points (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL,
                             lat REAL NOT NULL, lon REAL NOT NULL, alt REAL, speed REAL, distance REAL NOT NULL,
                             hr INTEGER, cadence REAL, power INTEGER);
        CREATE INDEX points_by_ride ON points (ride, time);
        """,
        // 2: a name, the time the ride last moved (for splitting on long stops), totals of a finished ride.
        """
        ALTER TABLE rides ADD COLUMN name TEXT;
        ALTER TABLE rides ADD COLUMN moved REAL;
        ALTER TABLE rides ADD COLUMN gain REAL;
        ALTER TABLE rides ADD COLUMN loss REAL;
        ALTER TABLE rides ADD COLUMN hr_avg REAL;
        ALTER TABLE rides ADD COLUMN hr_max INTEGER;
        UPDATE rides SET moved = end;
        """,
        // 3: points without a position (indoors) and each point's moving flag; whether a ride is closed (only a
        // closed ride counts as exported) and its totals; laps and the sensors that rode along.
        """
        CREATE TABLE points_3 (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL,
                               lat REAL, lon REAL, alt REAL, speed REAL, distance REAL NOT NULL,
                               hr INTEGER, cadence REAL, power INTEGER, moving INTEGER NOT NULL DEFAULT 0);
        INSERT INTO points_3 SELECT ride, time, lat, lon, alt, speed, distance, hr, cadence, power, coalesce(speed, 0) >= 1.0 FROM points;
        DROP TABLE points;
        ALTER TABLE points_3 RENAME TO points;
        CREATE INDEX points_by_ride ON points (ride, time);
        ALTER TABLE rides ADD COLUMN closed INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE rides ADD COLUMN totals TEXT;
        UPDATE rides SET closed = 1 WHERE id <> (SELECT id FROM rides ORDER BY end DESC LIMIT 1);
        CREATE TABLE laps (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL, trigger TEXT NOT NULL);
        CREATE TABLE devices (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, sensor TEXT NOT NULL, kind TEXT NOT NULL,
                              measures TEXT NOT NULL DEFAULT '', name TEXT, manufacturer TEXT, model TEXT, serial TEXT, battery INTEGER,
                              PRIMARY KEY (ride, sensor));
        """,
        // 4: the FTP and power zones a ride was ridden with (a demo's from its recording), so its time in zone is
        // counted in them whatever config later reads it.
        """
        ALTER TABLE rides ADD COLUMN ftp INTEGER;
        ALTER TABLE rides ADD COLUMN power_zones TEXT;
        """,
        // 5: the upload queue: one row per finished ride and training site (`UploadJob`).
        """
        CREATE TABLE uploads (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, service TEXT NOT NULL,
                              state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt REAL, upload_id TEXT,
                              activity_id TEXT, activity_url TEXT, detail TEXT, PRIMARY KEY (ride, service));
        """,
    ]

    /// What the steps end at, for a new file in one go (the added columns last, in the order the steps add them).
    static let current = """
        CREATE TABLE rides (id INTEGER PRIMARY KEY AUTOINCREMENT, start REAL NOT NULL, end REAL NOT NULL,
                            points INTEGER NOT NULL DEFAULT 0, distance REAL NOT NULL DEFAULT 0,
                            moving REAL NOT NULL DEFAULT 0, exported TEXT NOT NULL DEFAULT '',
                            name TEXT, moved REAL, gain REAL, loss REAL, hr_avg REAL, hr_max INTEGER,
                            closed INTEGER NOT NULL DEFAULT 0, totals TEXT, ftp INTEGER, power_zones TEXT);
        CREATE TABLE points (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL,
                             lat REAL, lon REAL, alt REAL, speed REAL, distance REAL NOT NULL,
                             hr INTEGER, cadence REAL, power INTEGER, moving INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX points_by_ride ON points (ride, time);
        CREATE TABLE laps (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, time REAL NOT NULL, trigger TEXT NOT NULL);
        CREATE TABLE devices (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, sensor TEXT NOT NULL, kind TEXT NOT NULL,
                              measures TEXT NOT NULL DEFAULT '', name TEXT, manufacturer TEXT, model TEXT, serial TEXT, battery INTEGER,
                              PRIMARY KEY (ride, sensor));
        CREATE TABLE uploads (ride INTEGER NOT NULL REFERENCES rides(id) ON DELETE CASCADE, service TEXT NOT NULL,
                              state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt REAL, upload_id TEXT,
                              activity_id TEXT, activity_url TEXT, detail TEXT, PRIMARY KEY (ride, service));
        """
}
