import Foundation
import RidegateCore
import RidegateTestSupport
import Testing

/// The bike's discovery message over the gateway's life: what a start announces (an earlier release's configs
/// cleared first, remembered sensors at once, removed ones as platforms alone), and a sensor that appears.
@Suite struct DiscoveryLifecycleTests {
    func at(_ s: Double) -> ReceiveTime { ReceiveTime(monotonicSeconds: s, system: Timestamp(secondsSince1970: 1_000 + s)) }

    func core(_ configure: (inout HomeAssistantDiscovery) -> Void = { _ in }) -> GatewayCore {
        var settings = GatewayCore.Settings(zones: .percentOfMax(190, percentages: [50, 60, 70, 80, 90]))
        var discovery = HomeAssistantDiscovery(discoveryPrefix: "homeassistant", baseTopic: "ridegate/bike", deviceID: "bike", version: "1")
        configure(&discovery)
        settings.homeAssistant = discovery
        return GatewayCore(settings: settings)
    }

    func publications(_ effects: [Effect]) -> [Publication] {
        effects.compactMap { if case .publish(let p) = $0 { p } else { nil } }
    }

    func components(_ p: Publication?) -> [String: [String: Any]] {
        p.flatMap { HomeAssistantSchema.components(ofDevice: $0.payload) } ?? [:]
    }

    static let strap = AnnouncedSensor(sensor: .strap("s1"), name: "H10", measures: [.heartRate])
    static let meter = AnnouncedSensor(sensor: SensorRef(kind: .power, id: "p1"), name: "4iiii", measures: [.power])

    @Test("A fresh start: one device message, nothing else under the discovery prefix, then ready")
    func freshStart() {
        let effects = core().startupEffects()
        #expect(publications(effects).map(\.topic) == ["homeassistant/device/bike/config"])
        #expect(effects.last == .serviceReady)
    }

    @Test("An earlier release's state: its configs cleared first (one-shot), then the device message")
    func migration() {
        let effects = core { $0.legacySensors = [.strap("s1")] }.startupEffects()
        let published = publications(effects)
        #expect(published.last?.topic == "homeassistant/device/bike/config" && published.last?.oneShot == false)
        let steps = published.dropLast()
        #expect(!steps.isEmpty && steps.allSatisfy(\.oneShot))
        #expect(steps.contains { $0.topic == "homeassistant/sensor/ridegate_bike_strap_s1_battery/config" && $0.payload.isEmpty })
    }

    @Test("Remembered sensors are announced from the start; one no longer configured is removed once and forgotten")
    func rememberedAndForgotten() {
        let effects = core {
            $0.rememberedSensors = [Self.strap]
            $0.forgottenSensors = [Self.meter]
        }.startupEffects()
        let all = components(publications(effects).first)
        #expect(all["strap_s1_battery"]?["name"] as? String == "H10 battery")
        #expect(all["sensor_p1_power_3s"]?.isEmpty == true, "removed: the platform alone")
        #expect(effects.contains(.rememberAnnouncedSensors([Self.strap])))
    }

    @Test("A sensor's details announce it, again only when it measures more or is renamed; each time remembered")
    func sensorAppears() {
        var c = core()
        let meter = SensorRef(kind: .power, id: "p1")
        let first = c.handle(.sensorDetails(meter, SensorDetails(name: "4iiii", measures: [.power]), at: at(1)))
        #expect(components(publications(first).last { $0.absolute })["sensor_p1_power_3s"] != nil)
        #expect(first.contains(.rememberAnnouncedSensors([AnnouncedSensor(sensor: meter, name: "4iiii", measures: [.power])])))
        let same = c.handle(.sensorDetails(meter, SensorDetails(name: "4iiii", measures: [.power]), at: at(2)))
        #expect(!publications(same).contains { $0.absolute })
        let more = c.handle(.sensorDetails(meter, SensorDetails(name: "4iiii", measures: [.cadence]), at: at(3)))
        let announced = components(publications(more).last { $0.absolute })
        #expect(announced["sensor_p1_power_3s"] != nil && announced["sensor_p1_cadence"] != nil, "what it measured before stays")
    }
}
