import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The discovery configs' templates rendered by Jinja (Debian's python3-jinja2, in a sandbox as Home
/// Assistant renders them) over payloads as ridegate publishes them: what each entity's state becomes.
/// Home Assistant reads a rendered "None" as unknown (its mqtt `PAYLOAD_NONE`) and binary sensors' "ON"/"OFF".
@Suite struct HomeAssistantTemplateTests {
    static let python = "/usr/bin/python3" // Debian's, with python3-jinja2 (scripts/lib.sh installs it)
    static let renderer = """
        import json, sys
        from jinja2.sandbox import ImmutableSandboxedEnvironment
        env = ImmutableSandboxedEnvironment()
        for case in json.loads(sys.argv[1]):
            print(json.dumps(env.from_string(case["template"]).render(value_json=json.loads(case["payload"]))))
        """

    let discovery: HomeAssistantDiscovery = {
        var d = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/bike", deviceID: "bike", version: "1")
        d.features = .init(heartRate: true, gps: true, sun: true, power: true, laps: true)
        return d
    }()

    /// Each template of `configs` whose object id ends with `key`, rendered over `payload`.
    func render(_ cases: [(key: String, payload: String)], availability: Bool = false,
                field: String = "value_template") async throws -> [String] {
        let meter = AnnouncedSensor(sensor: SensorRef(kind: .power, id: "p1"), name: "Meter", measures: [.power, .cadence, .wheelSpeed])
        let configs = try #require(HomeAssistantSchema.components(ofDevice: discovery.deviceConfig(sensors: [meter]).payload))
        var input: [[String: String]] = []
        for (key, payload) in cases {
            let json = try #require(configs[key] ?? configs.first { $0.key.hasSuffix("_\(key)") }?.value, "no component for \(key)")
            let template = availability ? (json["availability"] as? [[String: Any]])?.last?["value_template"] as? String
                                        : json[field] as? String
            input.append(["template": try #require(template, "\(key) has no template"), "payload": payload])
        }
        let cases = String(decoding: try JSONSerialization.data(withJSONObject: input), as: UTF8.self)
        let process = try ChildProcess(Self.python, ["-c", Self.renderer, cases], captureOutput: true)
        let lines = await process.waitForAllOutput(timeout: TestTime.seconds(10))
        #expect(await process.waitForExit(timeout: 5).flatMap(ChildProcess.exitCode) == 0, "\(lines)")
        return try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) as? String) }
    }

    @Test("Speeds become km/h and distances km, cadence and 3 s power whole numbers; a null becomes None (unknown), never an error or 0")
    func units() async throws {
        let rendered = try await render([
            ("speed", #"{"speed_mps":10.0}"#), ("speed", #"{"speed_mps":null}"#), ("speed", #"{"speed_mps":0.0}"#),
            ("distance", #"{"distance_m":5357.4,"final":false}"#), ("average_speed", #"{"avg_speed_mps":7.44}"#),
            ("maximum_speed", #"{"max_speed_mps":null}"#), ("last_ride", #"{"distance_m":11134.0}"#),
            ("wheel_speed", #"{"wheel_speed_mps":8.25}"#), ("average_power", #"{"avg_power_w":null}"#),
            ("work", #"{"work_kj":812.3}"#), ("moving_time", #"{"moving_s":1496}"#),
            ("cadence", #"{"cadence_rpm":87.6}"#), ("cadence", #"{"cadence_rpm":null}"#), ("power_3s", #"{"power_3s_w":231.4}"#),
        ])
        #expect(rendered == ["36.0", "None", "0.0", "5.357", "26.8", "None", "11.134", "29.7", "None", "812.3", "1496", "88", "None", "231"])
    }

    @Test("Binary sensors: riding until the final summary, connected only while connected, dark soon with the warning")
    func binarySensors() async throws {
        let rendered = try await render([
            ("riding", #"{"final":false}"#), ("riding", #"{"final":true}"#),
            ("p1_connected", #"{"state":"connected"}"#), ("p1_connected", #"{"state":"lost"}"#), ("p1_connected", #"{"state":"stopped"}"#),
            ("dark_soon", #"{"sunset_warning":true}"#), ("dark_soon", #"{"sunset_warning":false}"#),
        ])
        #expect(rendered == ["ON", "OFF", "ON", "OFF", "OFF", "ON", "OFF"])
    }

    @Test("The zone sensor carries the LED's colour for the zone (none without skin contact) and the number of zones")
    func zoneColour() async throws {
        let rendered = try await render([
            ("zone", #"{"bpm":98,"zone":0}"#), ("zone", #"{"bpm":142,"zone":3}"#), ("zone", #"{"bpm":185,"zone":5}"#),
            ("zone", #"{"bpm":0,"zone":null}"#), ("zone", #"{"bpm":200,"zone":9}"#),
        ], field: "json_attributes_template")
        let attributes = try rendered.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(attributes.map { $0["colour"] as? String } == ["#0000ff", "#00ff00", "#ff0000", nil, nil])
        #expect(attributes.allSatisfy { $0["zones"] as? Int == 5 })
    }

    @Test("A lap is an event: JSON with event_type (the trigger) and the lap's figures as attributes")
    func lapEvent() async throws {
        let payload = #"{"ts":"2026-06-21T16:12:03.000Z","seq":1,"lap":2,"trigger":"manual","lap_time_s":723,"lap_moving_s":701,"#
            + #""lap_distance_m":5120.4,"distance_m":10240.8,"clock_trusted":true}"#
        let rendered = try await render([("lap", payload)])
        let first = try #require(rendered.first)
        let event = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(event["event_type"] as? String == "manual")
        #expect(event["lap"] as? Int == 2 && event["lap_time_s"] as? Int == 723 && event["lap_distance_m"] as? Double == 5120.4)
        let lap = try #require(HomeAssistantSchema.components(ofDevice: discovery.deviceConfig(sensors: []).payload)?["lap"])
        #expect(lap["event_types"] as? [String] == ["manual", "distance"])
    }

    @Test("Health: sensor reconnects add straps and other sensors; speed is available only with a fix")
    func healthAndAvailability() async throws {
        let rendered = try await render([("sensor_reconnects", #"{"strap_reconnects":1,"sensor_reconnects":2}"#)])
        #expect(rendered == ["3"])
        let available = try await render([("speed", #"{"state":"ok"}"#), ("speed", #"{"state":"no_fix"}"#)], availability: true)
        #expect(available == ["online", "offline"])
    }
}
