/// Which sensor a configured entry means: an address (`AA:BB:CC:DD:EE:FF`), a name pattern with `*`
/// wildcards (`Polar H10*`, `4iiii*`), or `auto` (any device advertising the sensor kind's service).
public enum SensorSelector: Sendable, Equatable, CustomStringConvertible {
    case address(BluetoothAddress)
    case namePattern(String)
    case auto

    public init(configured text: String) {
        if text.lowercased() == "auto" {
            self = .auto
        } else if let address = BluetoothAddress(text) {
            self = .address(address)
        } else {
            self = .namePattern(text)
        }
    }

    public var description: String {
        switch self {
        case .address(let a): a.description
        case .namePattern(let p): "name \"\(p)\""
        case .auto: "auto"
        }
    }

    /// Whether an advertisement is this sensor. An address match needs no service UUID (some sensors put
    /// it only in the scan response); names and `auto` need the service of `kind`.
    public func matches(address: BluetoothAddress, advertising: AdvertisingData, kind: SensorProfile = .heartRate) -> Bool {
        switch self {
        case .address(let wanted):
            return wanted.bytes == address.bytes
        case .namePattern(let pattern):
            guard advertising.serviceUUIDs.contains(kind.service), let name = advertising.localName else { return false }
            return SensorSelector.glob(pattern.lowercased(), name.lowercased())
        case .auto:
            return advertising.serviceUUIDs.contains(kind.service)
        }
    }

    /// `*` matches any run of characters; everything else matches itself.
    static func glob(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
