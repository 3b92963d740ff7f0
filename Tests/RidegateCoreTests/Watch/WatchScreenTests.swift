import RidegateCore
import Testing

@Suite struct WatchScreenTests {
    func screen(_ units: DisplayUnits = DisplayUnits()) -> WatchScreen {
        WatchScreen(units: units, deviceID: "bike", broker: "pi:1883") { $0.secondsSince1970.truncatingRemainder(dividingBy: 86_400) }
    }

    func row(_ lines: [String], _ label: String) -> String { lines.first { $0.hasPrefix(label) } ?? "" }

    @Test("Payloads become rows; the sunset countdown runs on the gateway's (GPS) clock, not this machine's")
    func rows() {
        var s = WatchState()
        s.receive(topic: "status", payload: "online")
        s.receive(topic: "heart_rate", payload: #"{"ts":"2026-06-21T16:00:00.000Z","bpm":146,"zone":3,"contact":"detected"}"#)
        s.receive(topic: "gps", payload: #"{"ts":"2026-06-21T16:00:00.000Z","mode":"3d","speed_mps":7.8,"sats":9,"hdop":0.9,"moving":true}"#)
        s.receive(topic: "gps/state", payload: #"{"state":"ok"}"#)
        s.receive(topic: "ride", payload: #"{"distance_m":4170,"moving_s":535,"avg_speed_mps":7.8,"elevation_gain_m":26}"#)
        s.receive(topic: "sun", payload: #"{"ts":"2026-06-21T15:00:00.000Z","sunset":"2026-06-22T02:33:00.000Z","sunset_warning":false}"#)
        s.receive(topic: "strap/demo-strap/state", payload: #"{"state":"connected"}"#)
        s.receive(topic: "health", payload: #"{"spool_depth":12,"spool_mode":"disk","mqtt_connects":2}"#)
        let metric = screen().lines(s, connected: true)
        #expect(row(metric, "Heart rate") == "Heart rate 146 bpm · zone 3")
        #expect(row(metric, "Speed") == "Speed      28.1 km/h")
        #expect(row(metric, "Ride") == "Ride       4.17 km · moving 0:08:55 · avg 28.1 km/h · +26 m")
        #expect(row(metric, "Sun") == "Sun        sunset 02:33 · in 10:33:00")
        #expect(row(metric, "Broker") == "Broker     connected · 12 waiting in the spool · 2 connects")
        #expect(row(metric, "Sensors") == "Sensors    demo-strap connected")
        let imperial = screen(DisplayUnits(system: .imperial, clock: .twelveHour)).lines(s, connected: true)
        #expect(row(imperial, "Speed") == "Speed      17.4 mph")
        #expect(row(imperial, "Ride") == "Ride       2.59 mi · moving 0:08:55 · avg 17.4 mph · +85 ft")
        #expect(row(imperial, "Sun") == "Sun        sunset 2:33 AM · in 10:33:00")
        #expect(row(screen().lines(s, connected: false), "Gateway").contains("not connected"))
    }

    @Test("A stranger's messages under the prefix change nothing and are counted; nothing said is a dash")
    func hostile() {
        var s = WatchState()
        for junk in ["", "{", "[1,2]", "42", String(repeating: "{\"a\":", count: 1000), "\u{FF}\u{FE}"] {
            s.receive(topic: "heart_rate", payload: junk)
        }
        s.receive(topic: "gps", payload: #"{"speed_mps":"fast","sats":null}"#)
        let lines = screen().lines(s, connected: true)
        #expect(s.unreadable == 6)
        #expect(row(lines, "Heart rate") == "Heart rate -")
        #expect(row(lines, "Speed") == "Speed      -")
        #expect(lines.last?.contains("6 unreadable") == true)
    }

    @Test("A status cleared (an empty retained payload: the demo at its stop) is a gateway gone: offline")
    func clearedStatus() {
        var s = WatchState()
        s.receive(topic: "status", payload: "online")
        s.receive(topic: "status", payload: "")
        #expect(s.status == "offline")
    }

    @Test("Units and clocks: metric and imperial, 24 and 12 hours, the clock from the locale")
    func units() {
        let us = DisplayUnits(system: .imperial, clock: DisplayUnits.Clock(locale: "en_US.UTF-8"))
        #expect(us.clock == .twelveHour)
        #expect(DisplayUnits.Clock(locale: "de_DE.UTF-8") == .twentyFourHour)
        #expect(DisplayUnits.Clock(locale: nil) == .twentyFourHour)
        #expect(us.timeOfDay(secondsSinceMidnight: 0) == "12:00 AM")
        #expect(us.timeOfDay(secondsSinceMidnight: 12 * 3600 + 5 * 60) == "12:05 PM")
        #expect(DisplayUnits().timeOfDay(secondsSinceMidnight: 16 * 3600 + 5 * 60 + 59) == "16:05")
        #expect(us.distance(metres: 1609.344) == "1 mi")
        #expect(us.height(metres: 100) == "328 ft")
        #expect(DisplayUnits().speed(metresPerSecond: 10) == "36.0 km/h")
        #expect(DisplayUnits.duration(seconds: 3723) == "1:02:03")
    }
}
