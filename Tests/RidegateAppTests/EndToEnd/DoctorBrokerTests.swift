import Foundation
import RidegateTestSupport
import Testing

/// `ridegate doctor`'s broker check answers with the first attempt's reason when the broker refuses or its name
/// does not resolve (it used to wait out 5 s and say only that nothing connected).
@Suite struct DoctorBrokerTests {
    func brokerLine(host: String, port: Int) async throws -> String {
        try await brokerLine(mqtt: "host = \"\(host)\"\nport = \(port)")
    }

    func brokerLine(mqtt: String) async throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rg-doctor-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let config = dir + "/ridegate.toml"
        try "state_directory = \"\(dir)/state\"\n[mqtt]\n\(mqtt)\n[gps]\nenabled = false\n[heart_rate]\nenabled = false\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let doctor = try ChildProcess(RepositoryPaths.executable, ["doctor", "--config", config], captureOutput: true)
        _ = await doctor.waitForExit(timeout: TestTime.seconds(30))
        return (await doctor.waitForAllOutput(timeout: 5)).first { $0.contains("MQTT broker") } ?? "(no broker line)"
    }

    @Test("Nothing listening, a name that does not resolve, a refused login: the reason, not a timeout")
    func saysWhy() async throws {
        let port = try FreePort.loopback()
        let refused = try await brokerLine(host: "127.0.0.1", port: port)
        #expect(refused.contains("connection refused: nothing listens on 127.0.0.1:\(port)"), "\(refused)")
        let unresolved = try await brokerLine(host: "nonexistent.invalid", port: 1883)
        #expect(unresolved.contains("cannot resolve the broker's host name"), "\(unresolved)")
        let broker = try await MosquittoBroker.start(extraConfig: "allow_anonymous false\n")
        let login = try await brokerLine(host: "127.0.0.1", port: broker.port)
        #expect(login.contains("refused"), "\(login)")
        // It answered at the first refusal: one CONNECT reached the broker. The retry comes a second later, and
        // on a loaded machine it may slip in before the doctor has ended; waiting out 5 s would make three.
        let attempts = broker.logText.components(separatedBy: "Sending CONNACK").count - 1
        #expect((1...2).contains(attempts), "\(attempts) connection attempts: \(broker.logText.suffix(600))")
        let good = try await MosquittoBroker.start()
        let connected = try await brokerLine(host: "127.0.0.1", port: good.port)
        #expect(connected.contains("connected to 127.0.0.1:\(good.port)"), "\(connected)")
    }

    @Test("mqtt.hosts: each broker checked; one down of two is a warning naming it, with the one that works")
    func eachOfTheHosts() async throws {
        let good = try await MosquittoBroker.start()
        let dead = try FreePort.loopback()
        let line = try await brokerLine(mqtt: "hosts = [\"127.0.0.1:\(dead)\", \"127.0.0.1:\(good.port)\"]")
        #expect(line.contains("connected to 127.0.0.1:\(good.port)") && line.contains("no connection to 127.0.0.1:\(dead): connection refused"), "\(line)")
        #expect(line.hasPrefix("warn "), "\(line)")
    }
}
