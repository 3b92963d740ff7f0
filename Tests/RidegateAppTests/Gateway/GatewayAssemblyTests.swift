@testable import RidegateApp
import RidegateCore
import Testing

/// The wiring's own promises: sequence numbers continue from the spool, and the demo never takes the real
/// gateway's device id.
@Suite struct GatewayAssemblyTests {
    @Test("The core continues each topic's seq from the numbers the spool kept")
    func sequencesContinue() {
        var core = GatewayAssembly.makeCore(GatewayConfig(), sequences: ["gps": 41, "heart_rate": 7])
        let fix = GPSFix(time: Timestamp(secondsSince1970: 1_782_057_600), mode: .noFix) // published at once, no time to establish
        let effects = core.handle(.gpsFix(fix, at: ReceiveTime(monotonicSeconds: 1, system: Timestamp(secondsSince1970: 1))))
        let gps = effects.compactMap { if case .publish(let p) = $0, p.topic == "gps" { p } else { nil } }
        #expect(gps.first?.sequence == 42)
        #expect(core.sequences["heart_rate"] == 7)
    }

    @Test("The demo's device id is the configured one (or the host name) with -demo")
    func demoDeviceID() {
        var config = GatewayConfig()
        config.deviceID = "bike"
        #expect(GatewayAssembly.demoDeviceID(config) == "bike-demo")
        config.deviceID = nil
        #expect(GatewayAssembly.demoDeviceID(config) == GatewayAssembly.deviceID(config) + "-demo")
    }
}
