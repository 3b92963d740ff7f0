import Foundation
import Glibc
import RidegateLinux
import Testing

/// Files are replaced whole, and nothing planted beside them redirects the write.
@Suite struct AtomicFileTests {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test("Written in pieces, 0600 until renamed, the asked mode after; nothing left beside it")
    func writesWhole() throws {
        let dir = try folder()
        let target = dir + "/ride.gpx"
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        let file = try AtomicFile(replacing: target, mode: 0o644)
        for _ in 0..<3 { try file.write(String(repeating: "x", count: 50_000)) }
        let temporary = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first { $0.hasSuffix(".tmp") })
        #expect(try mode(dir + "/" + temporary) == 0o600)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "old")
        try file.commit()
        #expect(try String(contentsOfFile: target, encoding: .utf8).count == 150_000)
        #expect(try mode(target) == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["ride.gpx"])
    }

    @Test("A temporary file a power cut left (its writer gone) is removed; a running writer's and other hidden files stay")
    func leftoversRemoved() throws {
        let dir = try folder()
        // A process id no process has: past the kernel's pid_max (at most 2^22).
        let gone = "/.2026-06-21-1600-ride-3.fit.\(1 << 23)-1.tmp"
        let running = "/.2026-06-21-1600-ride-4.gpx.\(getpid())-2.tmp"
        for name in [gone, running, "/.hidden.tmp", "/.notes.x-1.tmp", "/2026-06-21-1600-ride-3.fit"] {
            try "partial".write(toFile: dir + name, atomically: false, encoding: .utf8)
        }
        #expect(AtomicFile.removeLeftovers(in: dir) == [String(gone.dropFirst())])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
                == [".2026-06-21-1600-ride-4.gpx.\(getpid())-2.tmp", ".hidden.tmp", ".notes.x-1.tmp", "2026-06-21-1600-ride-3.fit"])
        #expect(AtomicFile.removeLeftovers(in: dir + "/absent").isEmpty)
    }

    @Test("A symbolic link planted where the temporary file goes is never followed: its target is untouched")
    func plantedLink() throws {
        let dir = try folder()
        let victim = dir + "/victim"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        // Every name this process would try first, and the old fixed name.
        for n in 1...3 { try FileManager.default.createSymbolicLink(atPath: dir + "/.out.fit.\(getpid())-\(n).tmp", withDestinationPath: victim) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/out.fit.tmp", withDestinationPath: victim)
        try TextFile.replace(dir + "/out.fit", withBytes: Array("ride".utf8), mode: 0o644)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: dir + "/out.fit", encoding: .utf8) == "ride")
    }

    @Test("A directory, a FIFO, a device or a link to one is refused before anything is written; a link to a file is replaced, not followed")
    func targets() throws {
        let dir = try folder()
        #expect(AtomicFile.targetProblem(dir) == "a directory")
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        #expect(AtomicFile.targetProblem(dir + "/fifo") == "a FIFO")
        #expect(AtomicFile.targetProblem("/dev/null") == "a device")
        try FileManager.default.createSymbolicLink(atPath: dir + "/to-null", withDestinationPath: "/dev/null")
        #expect(AtomicFile.targetProblem(dir + "/to-null") == "a device")
        #expect(throws: FileWriteError.self) { try TextFile.replace(dir + "/to-null", with: "x") }
        #expect(throws: FileWriteError.self) { try TextFile.replace(dir, with: "x") }
        #expect(AtomicFile.targetProblem(dir + "/absent") == nil)
        try "kept".write(toFile: dir + "/real", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
        try TextFile.replace(dir + "/link", with: "new")
        #expect(try String(contentsOfFile: dir + "/real", encoding: .utf8) == "kept")
        #expect(try String(contentsOfFile: dir + "/link", encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["fifo", "link", "real", "to-null"])
    }

    @Test("Not committed: the temporary file is removed")
    func abandoned() throws {
        let dir = try folder()
        do {
            let file = try AtomicFile(replacing: dir + "/ride.tcx")
            try file.write("half a ride")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}
