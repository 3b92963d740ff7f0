import RidegateApp
import RidegateCore
import RidegateTestSupport
import Testing

@Suite struct ConfigLoaderTests {
    func load(_ text: String) throws(ConfigError) -> GatewayConfig {
        try TOMLConfigLoader.parse(text, file: "ridegate.toml")
    }

    func error(_ text: String) -> ConfigError? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("An empty file gives the documented defaults")
    func defaults() throws {
        let c = try load("")
        #expect(c == GatewayConfig())
        #expect(c.mqtt.port == 1883 && c.mqtt.prefix == "ridegate" && c.gps.device == "/dev/ridegate-gps")
        #expect(c.zones.zones.lowerBounds == [95, 114, 133, 152, 171])
    }

    @Test("[[sensor]]: power meters and speed/cadence sensors beside the straps; power zones; the LED by power")
    func sensors() throws {
        let c = try load("""
            [heart_rate]
            straps = ["auto", "Polar*"]
            [[sensor]]
            kind = "power"
            select = "4iiii*"
            [[sensor]]
            kind = "speed_cadence"
            select = "F4:12:FA:6C:3B:21"
            wheel_mm = 2096
            [zones]
            ftp = 250
            [led]
            zones = "power"
            """)
        #expect(c.bluetoothSensors == [
            .init(kind: .heartRate, select: "auto"), .init(kind: .heartRate, select: "Polar*"),
            .init(kind: .power, select: "4iiii*"), .init(kind: .speedCadence, select: "F4:12:FA:6C:3B:21", wheelMillimetres: 2096),
        ])
        #expect(c.zones.powerZones?.lowerBounds == [1, 140, 190, 228, 265, 303, 378])
        #expect(c.led.zones == .power)
        // Heart rate off: the straps go, cycling sensors stay.
        let noStraps = try load("[heart_rate]\nenabled = false\n[[sensor]]\nkind = \"power\"\n")
        #expect(noStraps.bluetoothSensors == [.init(kind: .power, select: "auto")])
    }

    @Test("[[sensor]] mistakes are refused with what to write instead")
    func sensorMistakes() {
        #expect(error("[[sensor]]\nselect = \"auto\"\n")?.description.contains("sensor 1 has no kind; add kind = \"power\"") == true)
        #expect(error("[[sensor]]\nkind = \"cadence\"\n")?.description.contains("\"cadence\" is not allowed; use one of \"heart_rate\", \"speed_cadence\", \"power\"") == true)
        #expect(error("[[sensor]]\nkind = \"heart_rate\"\nwheel_mm = 2100\n")?.description.contains("a heart-rate strap has no wheel") == true)
        #expect(error("[[sensor]]\nkind = \"power\"\nwheel_mm = 210\n")?.description.contains("sensor[1].wheel_mm") == true)
        #expect(error("[[sensor]]\nkind = \"power\"\nselect = \"F4:12:FA:6C:3B\"\n")?.description.contains("looks like a Bluetooth address but is not one") == true)
        #expect(error("[heart_rate]\nstraps = [\"F4:12:FA:6C:3B:2\"]\n")?.description.contains("looks like a Bluetooth address") == true)
        #expect(error("[[sensor]]\nkind = \"power\"\nselct = \"auto\"\n")?.description.contains("did you mean 'select'") == true)
        #expect(error("[led]\nzones = \"power\"\n")?.description.contains("set zones.ftp") == true)
        #expect(error("[zones]\nftp = 250\npower_percentages = [56, 50]\n")?.description.contains("strictly increasing") == true)
        #expect(error("sensor = \"power\"\n")?.description.contains("[[sensor]]") == true)
    }

    @Test("The example config in deploy/ is valid")
    func exampleIsValid() throws {
        let text = try String(contentsOfFile: RepositoryPaths.repository + "/deploy/ridegate.toml.example", encoding: .utf8)
        _ = try load(text)
    }

    @Test("A full config is read")
    func fullConfig() throws {
        let c = try load("""
            device_id = "bike-1"
            log_level = "debug"
            [mqtt]
            host = "broker.lan"
            port = 8883
            prefix = "home/bike"
            [gps]
            device = "/dev/ttyAMA0"
            baud = "auto"
            [zones]
            max_hr = 182
            percentages = [55, 65, 75, 85, 92]
            [led]
            mode = "single"
            line_name = "GPIO17"
            """)
        #expect(c.deviceID == "bike-1" && c.logLevel == .debug)
        #expect(c.mqtt.host == "broker.lan" && c.mqtt.port == 8883 && c.mqtt.prefix == "home/bike")
        #expect(c.gps.baud == .auto && c.gps.device == "/dev/ttyAMA0")
        #expect(c.zones.maxHeartRate == 182 && c.zones.percentages == [55, 65, 75, 85, 92])
        #expect(c.led.mode == .single && c.led.lineName == "GPIO17")
    }

    @Test("An unknown key is refused, naming its line and a likely fix")
    func unknownKey() throws {
        let e = try #require(error("""
            [mqtt]
            host = "x"

            prot = 1884
            """))
        #expect(e.line == 4)
        #expect(e.key == "mqtt.prot")
        #expect(e.description.contains("did you mean 'port'?"))
        #expect(e.description.hasPrefix("ridegate.toml:4: mqtt.prot"))
    }

    @Test("An out-of-range value is refused with its line, the value, and what is allowed")
    func outOfRange() throws {
        let e = try #require(error("# comment\n[mqtt]\nport = 70000\n"))
        #expect(e.line == 3)
        #expect(e.key == "mqtt.port")
        #expect(e.description.contains("70000 is out of range; allowed 1 to 65535"))
    }

    @Test("Wrong types, bad choices, inconsistent zones: each names the key")
    func wrongValues() throws {
        #expect(error("[gps]\nbaud = 1234\n")?.description.contains("4800, 9600") == true)
        #expect(error("[mqtt]\nport = \"1883\"\n")?.description.contains("expected a whole number") == true)
        #expect(error("[led]\nmode = \"blinky\"\n")?.description.contains("\"off\", \"single\", \"rgb\", \"bar\", \"console\"") == true)
        #expect(error("[led]\nmode = \"single\"\n")?.description.contains("needs a GPIO line") == true)
        #expect(error("[zones]\npercentages = [60, 50]\n")?.key == "zones.percentages")
        #expect(error("device_id = \"my bike\"\n")?.key == "device_id")
        #expect(error("mqtt = 3\n")?.description.contains("must be a table") == true)
        #expect(error("[unknown_table]\nx = 1\n")?.line == 1)
    }

    @Test("A syntax error reports its line")
    func syntax() throws {
        let e = try #require(error("[mqtt]\nport = = 3\n"))
        #expect(e.line == 2)
        #expect(e.description.contains("TOML syntax error"))
    }

    @Test("A missing file says how to fix it")
    func missingFile() {
        do {
            _ = try TOMLConfigLoader.load(path: "/nonexistent/ridegate.toml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("/nonexistent/ridegate.toml"))
            #expect(error.description.contains("--config"))
        }
    }

    @Test("Zone models and LED wirings are validated with what each needs")
    func zonesAndLEDs() throws {
        let karvonen = try load("[zones]\nmodel = \"hrr\"\nmax_hr = 190\nresting_hr = 60\n")
        #expect(karvonen.zones.zones.lowerBounds.first == 125)
        #expect(try load("[zones]\nmodel = \"lthr\"\nlthr = 170\n").zones.zones.count == 7)
        #expect(try load("[zones]\nmodel = \"bpm\"\nboundaries_bpm = [100, 120, 140]\n").zones.zones.lowerBounds == [100, 120, 140])
        #expect(error("[zones]\nmodel = \"bpm\"\n")?.description.contains("boundaries_bpm") == true)
        #expect(error("[zones]\nboundaries_bpm = [140, 120]\n")?.key == "zones.boundaries_bpm")
        #expect(error("[zones]\nmodel = \"hrr\"\nmax_hr = 150\nresting_hr = 140\n")?.key == "zones.resting_hr")
        let rgb = try load("[led]\nmode = \"rgb\"\nline_names = [\"GPIO17\", \"GPIO27\", \"GPIO22\"]\ncommon = \"anode\"\n")
        #expect(rgb.led.selectors.map(\.name) == ["GPIO17", "GPIO27", "GPIO22"] && rgb.led.activeLow)
        #expect(error("[led]\nmode = \"rgb\"\nlines = [17, 27]\n")?.description.contains("three lines") == true)
        #expect(try load("[led]\nmode = \"bar\"\nlines = [5, 6, 13, 19, 26]\n").led.selectors.count == 5)
    }
}

extension ConfigLoaderTests {
    @Test("mqtt.host that cannot work is refused with its line and the fix: a port in it, empty, a space, a scheme, brackets",
          arguments: [
              ("localhost:1883", "a port goes in mqtt.port"), ("", "the host is empty"), ("my broker", "no spaces"),
              ("mqtt://pi.local", "no scheme is needed"), ("[::1]:1883", "a port goes in mqtt.port"), ("[::1]", "without brackets"),
              ("pi_local!", "'!' has no place in a host name"),
          ])
    func brokerHost(_ host: String, _ fix: String) throws {
        let problem = try #require(error("# broker\n[mqtt]\nhost = \"\(host)\"\n"))
        #expect(problem.line == 3 && problem.key == "mqtt.host", "\(problem)")
        #expect(problem.description.contains(fix), "\(problem)")
    }

    @Test("Names and addresses that can work are taken as they are")
    func brokerHostsThatWork() throws {
        for host in ["localhost", "pi.local", "192.168.1.10", "::1", "fe80::1", "broker-1.example.org", "my_pi"] {
            #expect(try load("[mqtt]\nhost = \"\(host)\"\n").mqtt.host == host)
        }
    }
}

extension ConfigLoaderTests {
    @Test("[rider], ride.auto_lap_km and [button] are read; each mistake names its key and the fix")
    func riderLapsAndButton() throws {
        let c = try load("""
            [ride]
            auto_lap_km = 5
            [rider]
            weight_kg = 72.5
            age = 44
            sex = "female"
            [button]
            line_name = "GPIO27"
            long_press_s = 3
            """)
        #expect(c.ride.autoLapKilometers == 5 && c.rider == RiderProfile(weightKilograms: 72.5, age: 44, sex: .female))
        #expect(c.button?.lineName == "GPIO27" && c.button?.activeLow == true && c.button?.longPressSeconds == 3)
        #expect(try load("").button == nil && (try load("")).rider == nil && (try load("")).ride.autoLapKilometers == nil)
        let cases: [(String, String, String)] = [
            ("[rider]\nweight_kg = 70\n", "rider.sex", "need all three"),
            ("[rider]\nsex = \"other\"\nweight_kg = 70\nage = 30\n", "rider.sex", "\"other\" is not one of"),
            ("[rider]\nsex = \"male\"\nage = 30\n", "rider.weight_kg", "20 to 400"),
            ("[button]\nline = 27\nline_name = \"GPIO27\"\n", "button.line_name", "not both"),
            ("[button]\nactive_low = false\n", "button.line", "needs its GPIO line"),
        ]
        for (text, key, fix) in cases {
            let problem = try #require(error(text), "\(text) was accepted")
            #expect(problem.key == key && problem.description.contains(fix), "\(text): \(problem)")
        }
    }
}
