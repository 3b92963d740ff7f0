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
    public mutating func append(_ bytes: [UInt8], line: (ArraySlice<UInt8>) -> Void) {
        append(bytes[...], line: line)
    }

    /// Appends bytes; calls `line` for every complete line. Lines that arrive whole are handed over as
    /// slices of the input, without copying; only a line split across reads is gathered in `pending`.
    public mutating func append(_ bytes: ArraySlice<UInt8>, line: (ArraySlice<UInt8>) -> Void) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                gather(bytes[start...])
                return
            }
            if pending.isEmpty && !discarding {
                if newline - start <= maximumLength {
                    line(bytes[start..<newline])
                } else {
                    overlongLines += 1
                }
            } else {
                gather(bytes[start..<newline])
                if !discarding { line(pending[...]) }
                discarding = false
                pending.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
    }

    private mutating func gather(_ part: ArraySlice<UInt8>) {
        guard !discarding else { return }
        if pending.count + part.count > maximumLength {
            overlongLines += 1
            discarding = true
            pending.removeAll(keepingCapacity: true)
        } else {
            pending.append(contentsOf: part)
        }
    }

    /// What is left without a terminator (end of a file that does not end in a newline).
    public mutating func flush(line: (ArraySlice<UInt8>) -> Void) {
        if !pending.isEmpty, !discarding { line(pending[...]) }
        pending.removeAll(keepingCapacity: true)
        discarding = false
    }
}
