/// What the LED shows zones of: heart rate (bpm) or power (watts, from an FTP).
public enum ZoneSource: String, Sendable, CaseIterable {
    case heartRate = "heart_rate"
    case power
}
