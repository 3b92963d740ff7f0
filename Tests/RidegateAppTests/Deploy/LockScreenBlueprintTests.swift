import Foundation
import RidegateTestSupport
import Testing

/// deploy/homeassistant/ride-live-activity.yaml read as Home Assistant reads a blueprint (Debian's python3-yaml,
/// `!input` a tag of its own; Jinja's parser for every template): what a typo there would break only in a rider's
/// Home Assistant. scripts/home-assistant-check runs it in a real one (docs/homeassistant.md).
@Suite struct LockScreenBlueprintTests {
    static let path = "deploy/homeassistant/ride-live-activity.yaml"
    static let reader = """
        import json, sys, yaml, jinja2
        class Input(str): pass
        class Loader(yaml.SafeLoader): pass
        Loader.add_constructor("!input", lambda loader, node: Input(loader.construct_scalar(node)))
        doc = yaml.load(open(sys.argv[1]), Loader=Loader)
        inputs, templates = [], []
        def walk(node):
            if isinstance(node, Input): inputs.append(str(node))
            elif isinstance(node, str) and ("{{" in node or "{%" in node): templates.append(node)
            elif isinstance(node, dict): [walk(v) for v in node.values()]
            elif isinstance(node, list): [walk(v) for v in node]
        walk({k: v for k, v in doc.items() if k != "blueprint"})
        bad = []
        for t in templates:
            try: jinja2.Environment().parse(t)
            except jinja2.TemplateSyntaxError as e: bad.append(f"{e}: {t[:80]}")
        notify = [a for a in doc["actions"] if isinstance(a, dict) and a.get("type") == "notify"]
        print(json.dumps({"blueprint": doc["blueprint"], "used": sorted(set(inputs)), "templates": len(templates), "bad": bad,
                          "mode": doc.get("mode"), "notify_devices": sorted({str(a["device_id"]) for a in notify}),
                          "notify_domains": sorted({a["domain"] for a in notify})}))
        """

    func read() async throws -> [String: Any] {
        let process = try ChildProcess("/usr/bin/python3", ["-c", Self.reader, RepositoryPaths.repository + "/" + Self.path], captureOutput: true)
        let lines = await process.waitForAllOutput(timeout: TestTime.seconds(10))
        #expect(await process.waitForExit(timeout: 5).flatMap(ChildProcess.exitCode) == 0, "\(lines)")
        let last = try #require(lines.last)
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
    }

    @Test("An automation blueprint for a ridegate bike and a mobile_app phone; every input it uses declared, every template parses")
    func blueprint() async throws {
        let read = try await read()
        let blueprint = try #require(read["blueprint"] as? [String: Any])
        #expect(blueprint["domain"] as? String == "automation")
        #expect((blueprint["source_url"] as? String)?.hasSuffix("/blob/main/" + Self.path) == true)
        #expect((blueprint["homeassistant"] as? [String: String])?["min_version"] == "2026.7.0") // the companion apps' live_update
        let inputs = try #require(blueprint["input"] as? [String: [String: Any]])
        let bike = try #require((inputs["bike"]?["selector"] as? [String: [String: [[String: String]]]])?["device"]?["filter"]?.first)
        #expect(bike == ["integration": "mqtt", "manufacturer": "ridegate"])
        let phone = try #require((inputs["phone"]?["selector"] as? [String: [String: [[String: String]]]])?["device"]?["filter"]?.first)
        #expect(phone == ["integration": "mobile_app"])
        #expect(Set(read["used"] as? [String] ?? []) == Set(inputs.keys), "every input used, none undeclared")
        #expect((read["templates"] as? Int ?? 0) > 10)
        #expect(read["bad"] as? [String] == [])
        // One run per ride: a second start while it runs is the same ride (the gateway back after a cut).
        #expect(read["mode"] as? String == "single")
        #expect(read["notify_devices"] as? [String] == ["phone"] && read["notify_domains"] as? [String] == ["mobile_app"])
    }

    @Test("The budget the blueprint states is the one its gap allows: 3600 / 120 s = 30 updates an hour, 500 a day for 16 hours")
    func budget() async throws {
        let read = try await read()
        let inputs = try #require((read["blueprint"] as? [String: Any])?["input"] as? [String: [String: Any]])
        let gap = try #require(inputs["minimum_gap_seconds"]?["default"] as? Int)
        let minimum = try #require(((inputs["minimum_gap_seconds"]?["selector"] as? [String: [String: Any]])?["number"])?["min"] as? Int)
        #expect(gap == 120 && 3600 / gap == 30 && (3600 / gap) * 16 <= 500)
        // Even the smallest gap a rider may pick keeps an 8-hour ride (iOS's longest Live Activity) within 500.
        #expect((3600 / minimum) * 8 <= 500)
    }
}
