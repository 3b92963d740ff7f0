import Foundation
import RidegateTestSupport
import Testing

/// `deploy/image/strava-from-card` (ridegate-strava.service on the image): Strava authorized from a laptop with
/// an address pasted into a file on the card, against the Strava stand-in `UploadTests` uses.
@Suite struct StravaFromCardTests {
    /// Runs the script on `card` (the FAT partition's stand-in) with the built binary first on PATH.
    static func run(_ rig: UploadTests.Rig, card: String) async throws -> (status: Int32?, result: String) {
        let binaries = (RepositoryPaths.executable as NSString).deletingLastPathComponent
        let environment = ["PATH": binaries + ":/usr/bin:/bin", "RIDEGATE_CARD": card, "RIDEGATE_CONFIG": rig.config]
        let script = try ChildProcess("/bin/sh", [RepositoryPaths.repository + "/deploy/image/strava-from-card"],
                                      captureOutput: true, environment: environment)
        let status = await script.waitForExit(timeout: TestTime.seconds(60)).flatMap(ChildProcess.exitCode)
        _ = await script.waitForAllOutput(timeout: 5)
        let result = (try? String(contentsOfFile: card + "/strava-authorization-result.txt", encoding: .utf8)) ?? "(no result file)"
        return (status, result)
    }

    @Test("The pasted address: kept while Strava is unreachable, exchanged once it answers, and a spent code said so; each time the result file says what to do")
    func pastedAddress() async throws {
        let rig = try await UploadTests.Rig.make()
        let card = rig.dir + "/card", pasted = card + "/strava-authorization.txt"
        try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
        // As a laptop's editor on Windows saves it.
        let address = "http://localhost/exchange_token?state=&code=GOOD1&scope=read,activity:write\r\n"
        try address.write(toFile: pasted, atomically: true, encoding: .utf8)

        let (offline, unreachable) = try await Self.run(rig, card: card)
        #expect(offline == 0 && unreachable.contains("exit status 69") && unreachable.contains("Tried again at the next boot"), "\(unreachable)")
        #expect(FileManager.default.fileExists(atPath: pasted), "kept for the next boot")

        try await rig.strava.start()
        let (online, authorized) = try await Self.run(rig, card: card)
        #expect(online == 0 && authorized.contains("Strava authorized (athlete 1)") && authorized.contains("Done:"), "\(authorized)")
        #expect(!FileManager.default.fileExists(atPath: pasted), "a spent code goes")
        #expect(FileManager.default.fileExists(atPath: rig.dir + "/strava.token"))

        try address.write(toFile: pasted, atomically: true, encoding: .utf8)
        let (_, refused) = try await Self.run(rig, card: card)
        #expect(refused.contains("exit status 65") && refused.contains("each code works once") && refused.contains("The address to open: https://localhost"),
                "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: pasted))
        await rig.strava.stop()
        try? FileManager.default.removeItem(atPath: rig.dir)
    }

    @Test("No pasted file: nothing is done and nothing written")
    func nothingPasted() async throws {
        let rig = try await UploadTests.Rig.make()
        let card = rig.dir + "/card"
        try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
        let (status, result) = try await Self.run(rig, card: card)
        #expect(status == 0 && result == "(no result file)")
        try? FileManager.default.removeItem(atPath: rig.dir)
    }
}
