import RidegateApp
import RidegateCore
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

    @Test("The example config in deploy/ is valid")
    func exampleIsValid() throws {
        let text = try String(contentsOfFile: RidegateAppTestsPaths.repository + "/deploy/ridegate.toml.example", encoding: .utf8)
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
