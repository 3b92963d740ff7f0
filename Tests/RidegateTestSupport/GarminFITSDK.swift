import Foundation

/// What Garmin's own FIT decoder (garmin-fit-sdk, in the readers' virtualenv scripts/test installs) reads in a
/// file: whether its header and CRC check out, its decoding errors, and its messages as JSON (scale and offset
/// applied, times as seconds since the FIT epoch).
public enum GarminFITSDK {
    public static var python: String {
        ProcessInfo.processInfo.environment["RIDEGATE_FIT_PYTHON"] ?? "/opt/ridegate-test/fit-sdk/bin/python"
    }

    public struct Reading: @unchecked Sendable {
        public var integrity: Bool
        public var errors: [String]
        /// Messages by name (`session_mesgs`, `lap_mesgs`, `record_mesgs`, …), each a list of field dictionaries.
        public var messages: [String: [[String: Any]]]

        public func first(_ name: String) -> [String: Any] { messages[name]?.first ?? [:] }
        public func all(_ name: String) -> [[String: Any]] { messages[name] ?? [] }
    }

    public static func read(_ path: String) async throws -> Reading {
        let script = """
            import sys, json
            from garmin_fit_sdk import Decoder, Stream
            d = Decoder(Stream.from_file(sys.argv[1]))
            ok = d.is_fit() and d.check_integrity()
            m, e = Decoder(Stream.from_file(sys.argv[1])).read(convert_datetimes_to_dates=False)
            print(json.dumps({'integrity': ok, 'errors': [str(x) for x in e], 'messages': m}, default=str))
            """
        let process = try ChildProcess(python, ["-c", script, path], captureOutput: true)
        let status = await process.waitForExit(timeout: TestTime.seconds(120)).flatMap(ChildProcess.exitCode)
        let lines = await process.waitForAllOutput(timeout: 10)
        guard status == 0, let json = lines.last(where: { $0.hasPrefix("{") }),
              let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw ReadError(message: "the FIT SDK could not read \(path): \(lines.suffix(5))")
        }
        return Reading(integrity: object["integrity"] as? Bool ?? false, errors: object["errors"] as? [String] ?? [],
                       messages: object["messages"] as? [String: [[String: Any]]] ?? [:])
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
