/// The Raspberry Pi's UART/Bluetooth trade-off, read from config.txt and cmdline.txt (pure, so every
/// combination is tested). On a Pi 3, 4, Zero W and Zero 2 W the full PL011 UART drives the on-board
/// Bluetooth; the header pins get the mini UART, whose baud rate follows the core clock unless
/// `enable_uart=1` fixes it. ridegate needs Bluetooth, so the GPS belongs on the mini UART.
public enum PiSerialConfiguration {
    /// Boards whose Bluetooth shares the PL011 with the header.
    public static func sharesUARTWithBluetooth(model: String) -> Bool {
        ["Raspberry Pi 3", "Raspberry Pi 4", "Raspberry Pi Zero W", "Raspberry Pi Zero 2", "Raspberry Pi 400", "Compute Module 4"]
            .contains { model.contains($0) }
    }

    /// The header UART's names: Raspberry Pi OS's (`serial0`, the mini UART `ttyS0`, the PL011 `ttyAMA0`; the Pi 5's
    /// debug connector `ttyAMA10`) and Debian's kernel's (the mini UART `ttyS1`, after the device trees' `serial1`).
    static let headerDevices = ["serial0", "ttyS0", "ttyS1", "ttyAMA0", "ttyAMA10"]

    /// Findings for a GPS on the header UART. `configTxt` and `cmdlineTxt` are the files' contents; `gpsDevice` the
    /// device with links followed (`/dev/ridegate-gps` names the UART it links to).
    public static func check(model: String, configTxt: String, cmdlineTxt: String, gpsDevice: String) -> [DoctorCheck] {
        let settings = activeSettings(configTxt)
        let overlays = settings.filter { $0.key == "dtoverlay" }.map(\.value)
        var checks: [DoctorCheck] = []
        let onHeader = headerDevices.contains { "/dev/\($0)" == gpsDevice }

        if overlays.contains(where: { $0.hasPrefix("disable-bt") || $0.hasPrefix("pi3-disable-bt") }) {
            checks.append(DoctorCheck("UART and Bluetooth", .fail, "config.txt has dtoverlay=disable-bt: the on-board Bluetooth is off, and ridegate needs it for the sensors",
                                      fix: "remove dtoverlay=disable-bt and use enable_uart=1 (the GPS then runs on the mini UART, fine at 9600 baud)"))
        } else if overlays.contains(where: { $0.hasPrefix("miniuart-bt") || $0.hasPrefix("pi3-miniuart-bt") }) {
            let fixedClock = settings.contains { $0.key == "core_freq" } || settings.contains { $0.key == "force_turbo" && $0.value == "1" }
            checks.append(DoctorCheck("UART and Bluetooth", fixedClock ? .pass : .warn,
                                      "dtoverlay=miniuart-bt gives the PL011 to the header and moves Bluetooth to the mini UART"
                                        + (fixedClock ? "" : ", whose speed then drifts with the core clock"),
                                      fix: fixedClock ? nil : "add core_freq=250 (Pi 3) or core_freq=500 (Pi 4) to config.txt, or use enable_uart=1 without the overlay"))
        } else if onHeader && sharesUARTWithBluetooth(model: model) {
            let enabled = settings.contains { $0.key == "enable_uart" && $0.value == "1" }
            checks.append(DoctorCheck("UART and Bluetooth", enabled ? .pass : .fail,
                                      enabled ? "Bluetooth keeps the PL011; the GPS uses the mini UART with its clock fixed by enable_uart=1"
                                              : "the header UART is off (enable_uart is not 1) while Bluetooth holds the PL011",
                                      fix: enabled ? nil : "add enable_uart=1 to /boot/firmware/config.txt and reboot"))
        } else {
            checks.append(DoctorCheck("UART and Bluetooth", .pass, onHeader ? "\(model): separate UARTs for Bluetooth and the header" : "the GPS is not on the header UART"))
        }
        let consoles = cmdlineTxt.split(whereSeparator: \.isWhitespace).filter { word in headerDevices.contains { word.hasPrefix("console=\($0)") } }
        if onHeader, let console = consoles.first {
            checks.append(DoctorCheck("serial console", .fail, "cmdline.txt puts a login console on the UART the GPS uses (\(console))",
                                      fix: "remove \(console) from /boot/firmware/cmdline.txt (or raspi-config → Interface → Serial: no login shell, "
                                        + "hardware yes; on Debian's kernel set CONSOLES=\"tty0\" in /etc/default/raspi-firmware)"))
        }
        return checks
    }

    /// `key=value` lines of config.txt that apply (comments dropped; section filters like [pi4] kept simple:
    /// settings under [all] or before any section, and under sections naming any Pi, count).
    static func activeSettings(_ text: String) -> [(key: String, value: String)] {
        var result: [(String, String)] = []
        // isNewline: a file saved on Windows ends its lines in CR LF, one Character in Swift, never equal to "\n".
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.prefix { $0 != "#" }.trimmingCharacters(in: " \t\r")
            guard !line.isEmpty, !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { continue }
            result.append((String(line[..<equals]).trimmingCharacters(in: " \t"), String(line[line.index(after: equals)...]).trimmingCharacters(in: " \t")))
        }
        return result
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String { self[...].trimmingCharacters(in: set) }
}
