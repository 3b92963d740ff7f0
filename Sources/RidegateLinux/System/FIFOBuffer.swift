/// Elements waiting for their one consumer, oldest first. Taken slots are let go as the consumer catches up,
/// and also while it lags (once half the array is taken), so a consumer that is always a little behind does
/// not make the array grow with every element. Inlinable: its users (the gateway's event channel, a
/// descriptor's chunks) get it specialised for their element, with no generic look-ups per element.
public struct FIFOBuffer<Element> {
    @usableFromInline var elements: [Element] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    /// How many wait.
    @inlinable public var count: Int { elements.count - head }

    @inlinable public mutating func append(_ element: Element) { elements.append(element) }

    /// The oldest, or nil when none waits.
    @inlinable public mutating func takeFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }

    @inlinable public mutating func removeAll() {
        elements = []
        head = 0
    }
}

extension FIFOBuffer: Sendable where Element: Sendable {}
