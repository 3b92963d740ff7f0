/// One finding of `ridegate doctor`: what was checked, how it went, and what to do about it.
public struct DoctorCheck: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case pass, warn, fail, skip
    }

    public var name: String
    public var outcome: Outcome
    public var detail: String
    public var fix: String?

    public init(_ name: String, _ outcome: Outcome, _ detail: String, fix: String? = nil) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
        self.fix = fix
    }
}
