import RidegateCore
import Testing

@Suite struct PiSerialConfigurationTests {
    let pi4 = "Raspberry Pi 4 Model B Rev 1.5"

    func outcome(_ model: String, _ config: String, cmdline: String = "console=tty1 root=PARTUUID=1 rootwait",
                 device: String = "/dev/serial0") -> [DoctorCheck.Outcome] {
        PiSerialConfiguration.check(model: model, configTxt: config, cmdlineTxt: cmdline, gpsDevice: device).map(\.outcome)
    }

    @Test("Pi 4 with enable_uart=1: Bluetooth keeps the PL011, the GPS gets the mini UART")
    func enabled() { #expect(outcome(pi4, "[all]\nenable_uart=1\n") == [.pass]) }

    @Test("Pi 4 without enable_uart: the header UART is off")
    func notEnabled() {
        let checks = PiSerialConfiguration.check(model: pi4, configTxt: "# enable_uart=1\n", cmdlineTxt: "", gpsDevice: "/dev/serial0")
        #expect(checks.map(\.outcome) == [.fail])
        #expect(checks.first?.fix?.contains("enable_uart=1") == true)
    }

    @Test("disable-bt turns off the Bluetooth ridegate needs")
    func disableBT() { #expect(outcome(pi4, "dtoverlay=disable-bt\nenable_uart=1\n") == [.fail]) }

    @Test("A config.txt saved on Windows (CR LF line ends, a laptop's editor): every line counts")
    func windowsLineEnds() {
        #expect(outcome(pi4, "# ridegate\r\n[all]\r\nenable_uart=1\r\n") == [.pass])
        #expect(outcome(pi4, "enable_uart=1\r\ndtoverlay=disable-bt\r\n") == [.fail])
    }

    @Test("miniuart-bt needs a fixed core clock")
    func miniUART() {
        #expect(outcome(pi4, "dtoverlay=miniuart-bt\n") == [.warn])
        #expect(outcome(pi4, "dtoverlay=miniuart-bt\ncore_freq=500\n") == [.pass])
    }

    @Test("A login console on the GPS's UART is a failure")
    func console() {
        #expect(outcome(pi4, "enable_uart=1\n", cmdline: "console=serial0,115200 console=tty1 root=x") == [.pass, .fail])
    }

    @Test("Debian's kernel names the header's mini UART ttyS1, and raspi-firmware puts its console there")
    func debianKernel() {
        let checks = PiSerialConfiguration.check(model: pi4, configTxt: "enable_uart=1\n", cmdlineTxt: "console=tty0 console=ttyS1,115200 root=x",
                                                 gpsDevice: "/dev/ttyS1")
        #expect(checks.map(\.outcome) == [.pass, .fail])
        #expect(checks.last?.detail.contains("console=ttyS1,115200") == true && checks.last?.fix?.contains("CONSOLES") == true)
        #expect(outcome(pi4, "enable_uart=1\n", cmdline: "console=tty0 root=x", device: "/dev/ttyS1") == [.pass])
    }

    @Test("A Pi 5 has separate UARTs; a USB GPS is not affected at all")
    func noConflict() {
        #expect(outcome("Raspberry Pi 5 Model B Rev 1.0", "") == [.pass])
        #expect(outcome(pi4, "", device: "/dev/ridegate-gps") == [.pass])
    }
}
