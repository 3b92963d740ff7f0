import Foundation

/// Python's own sqlite3 module, for making or reading a SQLite file the way another program would (an older
/// release's layout, damage, what a file holds) without going through ridegate's code.
public enum PythonSQLite {
    /// Runs `script` (which finds the arguments in `sys.argv[1:]`) and returns what it printed. Python starts
    /// and runs on a thread of its own: the few threads the suite's async tests run on stay free.
    public static func run(_ script: String, _ arguments: [String]) async throws -> String {
        try await OffThePool.run { try runBlocking(script, arguments) }
    }

    private static func runBlocking(_ script: String, _ arguments: [String]) throws -> String {
        let python = try Executables.find("python3", hint: "apt-get install python3").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import sqlite3, sys\n" + script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ChildProcessError(message: "python3 exited \(process.terminationStatus) for: \(script)")
        }
        return printed
    }

    /// Every table's columns, indexes and foreign keys, as text two layouts can be compared by (the
    /// statements' own text differs between a table made whole and one grown by ALTER TABLE).
    public static func layout(_ file: String) async throws -> String {
        try await run("""
            c = sqlite3.connect(sys.argv[1])
            for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"):
                print('table', name, c.execute('PRAGMA table_info("%s")' % name).fetchall())
                print('  foreign keys', c.execute('PRAGMA foreign_key_list("%s")' % name).fetchall())
                for index in c.execute('PRAGMA index_list("%s")' % name).fetchall():
                    print('  index', index[1:], c.execute('PRAGMA index_info("%s")' % index[1]).fetchall())
            """, [file])
    }

    /// Each table's CREATE statement as SQLite keeps it: ALTER TABLE edits these (RENAME quotes the new
    /// name, ADD COLUMN appends to the column list), so they show how a layout was made.
    public static func tableStatements(_ file: String) async throws -> [String: String] {
        let printed = try await run("""
            import json
            c = sqlite3.connect(sys.argv[1])
            print(json.dumps(dict(c.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())))
            """, [file])
        let object = try JSONSerialization.jsonObject(with: Data(printed.utf8))
        guard let statements = object as? [String: String] else { throw ChildProcessError(message: "no table statements in \(file)") }
        return statements
    }
}
