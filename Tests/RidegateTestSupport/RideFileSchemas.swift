import Foundation

/// Validates exported GPX and TCX files against the reference corpus's schemas (`schemas/` in it) with
/// xmllint (Debian's libxml2-utils), extensions included: a small schema of our own imports the format's
/// schema and every extension's, so the elements inside `<extensions>`/`<Extensions>` (laxly checked by the
/// format's own schema) are checked against their declarations too.
public enum RideFileSchemas {
    public enum Format: String, Sendable {
        case gpx, tcx

        /// Namespace → schema file in the corpus, the format's own first.
        var imports: [(namespace: String, file: String)] {
            switch self {
            case .gpx: [("http://www.topografix.com/GPX/1/1", "gpx.xsd"),
                        ("http://www.garmin.com/xmlschemas/TrackPointExtension/v1", "TrackPointExtensionv1.xsd"),
                        ("http://www.garmin.com/xmlschemas/TrackPointExtension/v2", "TrackPointExtensionv2.xsd"),
                        ("http://www.garmin.com/xmlschemas/PowerExtension/v1", "PowerExtensionv1.xsd")]
            case .tcx: [("http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2", "TrainingCenterDatabasev2.xsd"),
                        ("http://www.garmin.com/xmlschemas/ActivityExtension/v2", "ActivityExtensionv2.xsd")]
            }
        }
    }

    /// The combined schema for `format`, written into a temporary folder.
    public static func schema(for format: Format) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rg-xsd-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">"# + "\n"
        for (namespace, file) in format.imports {
            let location = URL(fileURLWithPath: Fixtures.path("schemas/" + file)).absoluteString
            text += "  <xsd:import namespace=\"\(namespace)\" schemaLocation=\"\(location)\"/>\n"
        }
        text += "</xsd:schema>\n"
        let path = folder + "/\(format.rawValue)-with-extensions.xsd"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// xmllint's exit status (0: valid) and what it said.
    public static func validate(_ file: String, as format: Format) async throws -> (status: Int32?, output: [String]) {
        let xmllint = try Executables.find("xmllint", hint: "apt-get install libxml2-utils").path
        let process = try ChildProcess(xmllint, ["--noout", "--nonet", "--schema", try schema(for: format), file], captureOutput: true)
        let status = await process.waitForExit(timeout: TestTime.seconds(60)).flatMap(ChildProcess.exitCode)
        return (status, await process.waitForAllOutput(timeout: 5))
    }
}
