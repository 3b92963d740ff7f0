@testable import RidegateCore
import Testing

/// What the LED shows for what the gateway knows, and when it says so.
struct LEDChoiceTests {
    typealias Situation = LEDChoice.Situation

    func riding(zone: Int) -> Situation {
        Situation(heartRateZone: LEDChoice.Zone(zone: zone, of: 5), straps: [.connected], gpsFix: true)
    }

    @Test("A zone wins over every status; among statuses a read-only state directory, then a refused configuration")
    func order() {
        var situation = riding(zone: 3)
        situation.stateReadOnly = true
        situation.lastGoodConfig = true
        #expect(LEDChoice.signal(for: situation) == .zone(3, of: 5))
        situation.sunsetWarning = true
        #expect(LEDChoice.signal(for: situation) == .zoneAtDusk(3, of: 5))
        situation.heartRateZone = nil
        #expect(LEDChoice.signal(for: situation) == .stateReadOnly)
        situation.stateReadOnly = false
        #expect(LEDChoice.signal(for: situation) == .configRejected)
        situation.lastGoodConfig = false
        #expect(LEDChoice.signal(for: situation) == .searchingForStrap)
    }

    @Test("The strap: connected without a zone yet, not touching skin, lost, never heard of")
    func strap() {
        var situation = riding(zone: 2)
        situation.noSensorContact = true
        #expect(LEDChoice.signal(for: situation) == .noSensorContact)
        situation.noSensorContact = false
        situation.heartRateZone = nil
        #expect(LEDChoice.signal(for: situation) == .searchingForStrap)
        situation.straps = [.lost]
        #expect(LEDChoice.signal(for: situation) == .strapLost)
        // A strap lost while another of a tandem still rides: the one connected is shown.
        situation.straps = [.lost, .connected]
        situation.heartRateZone = LEDChoice.Zone(zone: 4, of: 5)
        #expect(LEDChoice.signal(for: situation) == .zone(4, of: 5))
        // Zones without any strap state (a replay's readings): shown.
        situation.straps = []
        #expect(LEDChoice.signal(for: situation) == .zone(4, of: 5))
        situation.heartRateZone = nil
        #expect(LEDChoice.signal(for: situation) == .searchingForStrap)
    }

    @Test("Power zones show while a power meter is connected, or when no sensor has a state; else the heart rate's")
    func powerZones() {
        var situation = riding(zone: 2)
        situation.powerZone = LEDChoice.Zone(zone: 6, of: 7)
        situation.anySensorKnown = true
        #expect(LEDChoice.signal(for: situation) == .zone(2, of: 5)) // the meter has gone: its zone is stale
        situation.powerMeterConnected = true
        #expect(LEDChoice.signal(for: situation) == .zone(6, of: 7))
        situation.powerMeterConnected = false
        situation.anySensorKnown = false
        #expect(LEDChoice.signal(for: situation) == .zone(6, of: 7))
    }

    @Test("Heart rate off and no power zone: the sunset warning, else whether the GPS has a fix")
    func noHeartRate() {
        var situation = Situation(heartRateEnabled: false, gpsFix: true)
        #expect(LEDChoice.signal(for: situation) == .off)
        situation.gpsFix = false
        #expect(LEDChoice.signal(for: situation) == .noGPSFix)
        situation.sunsetWarning = true
        #expect(LEDChoice.signal(for: situation) == .sunsetSoon)
    }

    @Test("Only changes are said; the lap button's acknowledgement shows for a second, then what is true again")
    func changesAndAcknowledgement() {
        var led = LEDChoice()
        #expect(led.change(for: riding(zone: 2), now: 10) == .zone(2, of: 5))
        #expect(led.change(for: riding(zone: 2), now: 11) == nil)
        led.acknowledge(at: 12)
        #expect(led.change(for: riding(zone: 2), now: 12) == .acknowledged)
        #expect(led.change(for: riding(zone: 3), now: 12.9) == nil)
        #expect(led.change(for: riding(zone: 3), now: 13) == .zone(3, of: 5))
        #expect(led.change(for: riding(zone: 3), now: 14) == nil)
    }
}
