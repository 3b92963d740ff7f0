import CSQLite

/// The SQLite library ridegate runs against (`ridegate version`).
public enum SQLiteLibrary {
    public static var versionDescription: String {
        "SQLite " + String(cString: sqlite3_libversion())
    }
}
