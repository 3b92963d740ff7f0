import Foundation
import RidegateTestSupport
import Testing

/// `scripts/imager-manifest`, which `build-image` runs beside every image: the manifest that makes Raspberry Pi
/// Imager 2.x offer its customisation form for a ridegate image, as a local file and as a published list.
@Suite struct ImagerManifestTests {
    /// Imager's JSON schema (rpi-imager `doc/json-schema/os-list-schema.json`): third-party, so not in the
    /// repository; read from $RIDEGATE_IMAGER_SCHEMA, else from the reference corpus when it carries it.
    static var schema: String? {
        let candidates = [ProcessInfo.processInfo.environment["RIDEGATE_IMAGER_SCHEMA"], Fixtures.path("schemas/os-list-schema.json")]
        return candidates.compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// An image, its "compressed" copy and the icon in a folder of their own (the script reads sizes and checksums,
    /// never the image's contents).
    static func files() throws -> (dir: String, xz: String, raw: String, icon: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-imager-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let raw = dir + "/ridegate-1.2.3-arm64.img", xz = raw + ".xz", icon = dir + "/ridegate-icon.svg"
        try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: raw))
        try Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0) }).write(to: URL(fileURLWithPath: xz))
        try FileManager.default.copyItem(atPath: RepositoryPaths.repository + "/deploy/image/ridegate-icon.svg", toPath: icon)
        return (dir, xz, raw, icon)
    }

    /// The script's manifest, parsed, and kept as `name` in the folder.
    static func manifest(_ where: [String], _ files: (dir: String, xz: String, raw: String, icon: String), saveAs name: String
    ) async throws -> [String: Any] {
        let script = RepositoryPaths.repository + "/scripts/imager-manifest"
        let run = try ChildProcess("/usr/bin/python3", [script, "--xz", files.xz, "--raw", files.raw, "--version", "1.2.3",
                                                       "--icon", files.icon] + `where`, captureOutput: true)
        #expect(await run.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        let text = (await run.waitForAllOutput(timeout: 5)).joined(separator: "\n")
        try text.write(toFile: files.dir + "/" + name, atomically: true, encoding: .utf8)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    static func sha256(_ path: String) async throws -> String {
        let run = try ChildProcess("/usr/bin/sha256sum", [path], captureOutput: true)
        _ = await run.waitForExit(timeout: TestTime.seconds(10))
        return String((await run.waitForAllOutput(timeout: 5)).joined().prefix(64))
    }

    @Test("The local manifest: file:// addresses of the image and its icon, sizes and checksums of both images, cloud-init's form, devices Imager lists")
    func localManifest() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        let manifest = try await Self.manifest(["--local"], files, saveAs: "local.rpi-imager-manifest")
        let entry = try #require((manifest["os_list"] as? [[String: Any]])?.first)
        // What Imager's schema requires of an entry; what the form needs (init_format); the checksums it checks.
        for key in ["name", "description", "icon", "url", "extract_size", "extract_sha256", "image_download_size", "release_date", "devices"] {
            #expect(entry[key] != nil, "\(key) missing")
        }
        #expect(entry["url"] as? String == URL(fileURLWithPath: files.xz).absoluteString)
        #expect(entry["icon"] as? String == URL(fileURLWithPath: files.icon).absoluteString)
        #expect(entry["init_format"] as? String == "cloudinit-rpi")
        #expect(entry["extract_size"] as? Int == 300_000 && entry["image_download_size"] as? Int == 1_000)
        let (rawSum, xzSum) = (try await Self.sha256(files.raw), try await Self.sha256(files.xz))
        #expect(entry["extract_sha256"] as? String == rawSum)
        #expect(entry["image_download_sha256"] as? String == xzSum)
        #expect((entry["release_date"] as? String)?.split(separator: "-").map(\.count) == [4, 2, 2])
        // With a repository of its own, Imager lists the devices given there and shows the OS for a device whose tags
        // meet the entry's.
        let devices = try #require((manifest["imager"] as? [String: Any])?["devices"] as? [[String: Any]])
        let tags = Set(devices.flatMap { $0["tags"] as? [String] ?? [] })
        #expect(devices.allSatisfy { $0["name"] is String && $0["description"] is String && $0["tags"] is [String] })
        #expect(Set(entry["devices"] as? [String] ?? []) == tags, "every device finds the image")
        #expect(devices.map { $0["name"] as? String } == ["Raspberry Pi 4", "Raspberry Pi 3", "Raspberry Pi Zero 2 W"])
    }

    @Test("The published list points at the image and its icon under the address given")
    func publishedList() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        let manifest = try await Self.manifest(["--url-base", "https://example.org/ridegate/v1.2.3/"], files, saveAs: "os_list.json")
        let entry = try #require((manifest["os_list"] as? [[String: Any]])?.first)
        #expect(entry["url"] as? String == "https://example.org/ridegate/v1.2.3/ridegate-1.2.3-arm64.img.xz")
        #expect(entry["icon"] as? String == "https://example.org/ridegate/v1.2.3/ridegate-icon.svg")
    }

    @Test("Made in a container: --local-dir gives the host's folder, a POSIX one or a Windows drive path, as file:// addresses")
    func hostFolder() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        for (folder, expected) in [("/Users/jo/ride gate/dist", "file:///Users/jo/ride%20gate/dist/"),
                                   (#"C:\Users\jo\ridegate\dist"#, "file:///C:/Users/jo/ridegate/dist/")] {
            let manifest = try await Self.manifest(["--local-dir", folder], files, saveAs: "host.rpi-imager-manifest")
            let entry = try #require((manifest["os_list"] as? [[String: Any]])?.first)
            #expect(entry["url"] as? String == expected + "ridegate-1.2.3-arm64.img.xz")
            #expect(entry["icon"] as? String == expected + "ridegate-icon.svg")
        }
    }

    @Test("Without the raw image (a manifest made again on another computer) its size and checksum come from the .xz decompressed")
    func fromTheCompressedImage() async throws {
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        let xz = try ChildProcess(try Executables.find("xz", hint: "apt-get install xz-utils").path, ["-k", "-f", "-0", files.raw])
        #expect(await xz.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        let script = RepositoryPaths.repository + "/scripts/imager-manifest"
        let run = try ChildProcess("/usr/bin/python3", [script, "--xz", files.xz, "--version", "1.2.3", "--icon", files.icon, "--local"],
                                   captureOutput: true)
        #expect(await run.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode) == 0)
        let text = (await run.waitForAllOutput(timeout: 5)).joined(separator: "\n")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        let entry = try #require((manifest["os_list"] as? [[String: Any]])?.first)
        #expect(entry["extract_size"] as? Int == 300_000)
        let rawSum = try await Self.sha256(files.raw)
        #expect(entry["extract_sha256"] as? String == rawSum)
    }

    @Test("Both manifests validate against Imager's JSON schema (when the schema is at hand)")
    func validAgainstImagersSchema() async throws {
        guard let schema = Self.schema else {
            print("skipped: Imager's os-list-schema.json is not in the reference corpus; set RIDEGATE_IMAGER_SCHEMA to check against it")
            return
        }
        let files = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: files.dir) }
        _ = try await Self.manifest(["--local"], files, saveAs: "local.rpi-imager-manifest")
        _ = try await Self.manifest(["--url-base", "https://example.org/r"], files, saveAs: "os_list.json")
        let check = "import json,sys,jsonschema\nfor f in sys.argv[2:]: jsonschema.validate(json.load(open(f)), json.load(open(sys.argv[1])))"
        let run = try ChildProcess("/usr/bin/python3", ["-c", check, schema, files.dir + "/local.rpi-imager-manifest", files.dir + "/os_list.json"],
                                   captureOutput: true)
        let status = await run.waitForExit(timeout: TestTime.seconds(30)).flatMap(ChildProcess.exitCode)
        let said = await run.waitForAllOutput(timeout: 5)
        #expect(status == 0, "\(said.suffix(8).joined(separator: "\n"))")
    }
}
