import Glibc

/// rfkill state of Bluetooth radios from sysfs; nil when there is none.
public enum Rfkill {
    public static func bluetoothBlocked() -> Bool? {
        guard let dir = opendir("/sys/class/rfkill") else { return nil }
        defer { closedir(dir) }
        var anyBluetooth = false
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("rfkill") else { continue }
            let base = "/sys/class/rfkill/\(name)"
            guard (try? TextFile.read(base + "/type"))?.hasPrefix("bluetooth") == true else { continue }
            anyBluetooth = true
            let soft = (try? TextFile.read(base + "/soft"))?.hasPrefix("1") == true
            let hard = (try? TextFile.read(base + "/hard"))?.hasPrefix("1") == true
            if soft || hard { return true }
        }
        return anyBluetooth ? false : nil
    }
}
