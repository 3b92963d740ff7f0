/// Where a lap ends: the rider pressed the lap button, the ride passed another `ride.auto_lap_km`, or the ride
/// ended (the last lap). The trigger is what the files say (FIT's lap_trigger, TCX's TriggerMethod).
public struct LapMark: Sendable, Equatable {
    public enum Trigger: String, Sendable, CaseIterable {
        case manual, distance, end

        /// FIT's lap_trigger: manual 0, distance 2, session_end 7.
        public var fitValue: UInt8 {
            switch self {
            case .manual: 0
            case .distance: 2
            case .end: 7
            }
        }

        /// TCX's TriggerMethod_t.
        public var tcxValue: String {
            switch self {
            case .manual, .end: "Manual"
            case .distance: "Distance"
            }
        }
    }

    public var time: Timestamp
    public var trigger: Trigger

    public init(time: Timestamp, trigger: Trigger) {
        self.time = time
        self.trigger = trigger
    }
}
