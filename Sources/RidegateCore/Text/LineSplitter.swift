/// Splits a byte stream into lines at LF (a CR before it is kept for the framer to trim). Lines longer
/// than `maximumLength` are cut off and reported once, so a stream of binary noise cannot grow memory.
public struct LineSplitter: Sendable {
    public let maximumLength: Int
    private var pending: [UInt8] = []
    private var discarding = false
    public private(set) var overlongLines = 0

    public init(maximumLength: Int = 256) {
        self.maximumLength = maximumLength
        pending.reserveCapacity(maximumLength)
    }

    /// Appends bytes; calls `line` for every complete line.
    public mutating func append(_ bytes: some Sequence<UInt8>, line: (ArraySlice<UInt8>) -> Void) {
        for byte in bytes {
            if byte == 0x0A {
                if discarding {
                    discarding = false
                } else {
                    line(pending[...])
                }
                pending.removeAll(keepingCapacity: true)
            } else if !discarding {
                if pending.count >= maximumLength {
                    overlongLines += 1
                    discarding = true
                    pending.removeAll(keepingCapacity: true)
                } else {
                    pending.append(byte)
                }
            }
        }
    }

    /// What is left without a terminator (end of a file that does not end in a newline).
    public mutating func flush(line: (ArraySlice<UInt8>) -> Void) {
        if !pending.isEmpty, !discarding { line(pending[...]) }
        pending.removeAll(keepingCapacity: true)
        discarding = false
    }
}
