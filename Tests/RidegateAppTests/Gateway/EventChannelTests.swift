import Foundation
@testable import RidegateApp
import RidegateTestSupport
import Testing

/// The sources' events to the core: in order, none lost or doubled, the end only after the last one.
struct EventChannelTests {
    @Test("Events sent before and while the consumer waits arrive once each, in each sender's order; finish ends it after the last")
    func inOrderNoneLostNoneDoubled() async {
        let channel = EventChannel<Int>()
        for n in 0..<3 { channel.send(n) } // buffered: nobody waits yet
        let consumer = Task {
            var got: [Int] = []
            while let n = await channel.next() { got.append(n) }
            return got
        }
        // Four senders at once, from other threads, each in its own order.
        await withTaskGroup(of: Void.self) { group in
            for sender in 1...4 {
                group.addTask {
                    for i in 0..<500 {
                        channel.send(sender * 1000 + i)
                        if i % 50 == 0 { await Task.yield() }
                    }
                }
            }
        }
        channel.finish()
        channel.send(-1) // after the end: dropped
        let got = await consumer.value
        #expect(Array(got.prefix(3)) == [0, 1, 2])
        #expect(got.count == 3 + 4 * 500)
        for sender in 1...4 {
            let mine = got.filter { $0 / 1000 == sender }
            #expect(mine == (0..<500).map { sender * 1000 + $0 }, "sender \(sender)")
        }
    }

    @Test("A consumer that never quite catches up gets every event in order (taken slots are let go on the way)")
    func laggingConsumer() async {
        let channel = EventChannel<Int>()
        var got: [Int] = []
        for round in 0..<5 {
            for i in 0..<1000 { channel.send(round * 1000 + i) }
            for _ in 0..<700 { if let n = await channel.next() { got.append(n) } }
        }
        channel.finish()
        while let n = await channel.next() { got.append(n) }
        #expect(got == Array(0..<5000))
    }

    @Test("A finish while events wait: the consumer still gets them, then nil")
    func finishDrainsFirst() async {
        let channel = EventChannel<String>()
        channel.send("a")
        channel.send("b")
        channel.finish()
        #expect(await channel.next() == "a")
        #expect(await channel.next() == "b")
        #expect(await channel.next() == nil)
        #expect(await channel.next() == nil)
    }

    @Test("A consumer waiting on an empty channel ends when its task is cancelled, and when finished")
    func waitingConsumerEnds() async {
        let cancelled = EventChannel<Int>()
        let waiting = Task { await cancelled.next() }
        await parked(cancelled)
        waiting.cancel()
        #expect(await waiting.value == nil)

        let finished = EventChannel<Int>()
        let waiter = Task { await finished.next() }
        await parked(finished)
        finished.finish()
        #expect(await waiter.value == nil)
    }

    @Test("A consumer waiting on an empty channel gets the next event sent")
    func waitingConsumerGetsTheEvent() async {
        let channel = EventChannel<Int>()
        let waiter = Task { await channel.next() }
        await parked(channel)
        channel.send(7)
        #expect(await waiter.value == 7)
    }

    /// Returns once the consumer waits in `next()`: what follows then meets a parked consumer, however loaded the machine.
    private func parked(_ channel: EventChannel<Int>) async {
        while !channel.consumerIsWaiting { await Task.yield() }
    }
}
