import Foundation
import RidegateTestSupport
import Testing

/// A fleet's broker as a cluster: three RabbitMQ nodes (Debian's rabbitmq-server, MQTT plugin) on loopback,
/// every node in `mqtt.hosts`. The node the gateway uses is stopped mid-ride; the gateway moves to the next,
/// and a subscriber on a third node receives every reading, those of the outage replayed from the spool.
@Suite struct RabbitMQClusterTests {
    @Test("The cluster node in use stops mid-ride: the gateway fails over to the next node; no seq missing at a subscriber on another")
    func failoverAcrossNodes() async throws {
        let cluster = try await RabbitMQCluster.start()
        defer { cluster.stop() }
        let (first, second, third) = (cluster.nodes[0], cluster.nodes[1], cluster.nodes[2])
        let subscriber = try MQTTSubscriber(port: third.mqttPort, topic: "ridegate/r/gps", extraArguments: ["-q", "1"])
        let demo = try BrokerFailoverTests.demo(hosts: [first.mqttPort, second.mqttPort, third.mqttPort], deviceID: "r")
        let before = await subscriber.wait(timeout: TestTime.seconds(30)) { StoreAndForwardTests.seqs($0, "ridegate/r/gps").count >= 5 }
        try #require(StoreAndForwardTests.seqs(before, "ridegate/r/gps").count >= 5, "\(demo.lines.suffix(5))")
        try await cluster.stop(first)
        let lastBefore = StoreAndForwardTests.seqs(subscriber.messages, "ridegate/r/gps").max() ?? 0
        let after = await subscriber.wait(timeout: TestTime.seconds(60)) {
            (StoreAndForwardTests.seqs($0, "ridegate/r/gps").max() ?? 0) > lastBefore + 20
        }
        demo.signal(SIGTERM)
        #expect(await demo.waitForExit(timeout: TestTime.seconds(10)).flatMap(ChildProcess.exitCode) == 0)
        let seqs = Set(StoreAndForwardTests.seqs(after, "ridegate/r/gps"))
        let top = seqs.max() ?? 0
        #expect(top > lastBefore + 20, "readings up to \(top) after the node stopped, \(lastBefore) before")
        #expect(seqs == Set(1...max(1, top)), "missing: \(Set(1...max(1, top)).subtracting(seqs).sorted().prefix(10))")
        let log = await demo.waitForAllOutput(timeout: 5)
        #expect(log.contains { $0.contains("reconnected to broker") && $0.contains("127.0.0.1:\(second.mqttPort)") },
                "\(log.filter { $0.contains("broker") })")
    }
}
