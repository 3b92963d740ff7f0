import Foundation
import RidegateApp
import RidegateCore
import RidegateFuzzTargets
import RidegateTestSupport
import Testing

/// The fuzz targets in the ordinary suite: every input that once crashed one (Fuzz/regressions/<target>/),
/// a recorded sensor session through the fuzzed-peer ATT target, and hostile inputs written by hand. A
/// crash here is the test process dying, which fails the run.
@Suite struct FuzzRegressionTests {
    /// Runs on a thread of its own: the ATT target waits for its session with a semaphore, which must not
    /// block the few threads Swift concurrency runs the session on (libFuzzer calls it from the main thread).
    /// A run that has not ended after `timeout` seconds is a hang: recorded as a failure (its thread is left behind).
    func offPool(timeout: Double = 120, _ body: @escaping @Sendable () -> Void) async {
        let finished = Observed<Bool>(false)
        Thread {
            body()
            finished.update { $0 = true }
        }.start()
        let ended = await finished.wait(timeout: TestTime.seconds(timeout)) { $0 }
        #expect(ended, "a fuzz target did not finish within \(timeout) s: a hang")
    }

    @Test("Every kept regression input runs through its target without a crash")
    func keptRegressions() async throws {
        let root = RepositoryPaths.repository + "/Fuzz/regressions"
        var ran = 0
        for target in FuzzTarget.allCases {
            let folder = root + "/" + target.rawValue
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                let data = try #require(FileManager.default.contents(atPath: folder + "/" + name))
                await offPool { target.run(Array(data)) }
                ran += 1
            }
        }
        // The folders fill as the fuzzer finds things (docs/testing.md lists them); none found means the path is
        // wrong and this test would check nothing.
        #expect(ran > 0, "no kept regression input under \(root)")
    }

    @Test("The fit target's seed: ridegate's own FIT reads back with every record; every cut of it, and each byte flipped, is read or refused, never a trap")
    func fitSeed() async throws {
        let bytes = FuzzSeeds.fitFile()
        let file = try FITActivityFile(bytes)
        #expect(file.records.count == 120 && file.sessions.count == 1)
        // Thousands of runs, each rehearsing a ride: seconds of work (14 s under Swift 6.0.3's debug build) that on one
        // of the suite's two cooperative threads would hold up every async test waiting for its turn.
        await offPool {
            for end in 0..<bytes.count { FuzzTarget.fit.run(Array(bytes[..<end])) }
            for index in bytes.indices {
                var flipped = bytes
                flipped[index] ^= 0xFF
                FuzzTarget.fit.run(flipped)
            }
        }
    }

    @Test("A recorded power-meter session replays through the fuzzed-peer target; cut short, it still ends")
    func attClientScript() async {
        let recorded = Observed<[UInt8]>([])
        await offPool { recorded.update { $0 = FuzzSeeds.attClientScript(services: [.power, .speedCadence]) } }
        let script = recorded.current
        #expect(script.count > 100, "the recording is a whole session: \(script.count) bytes")
        await offPool {
            FuzzTarget.attClient.run(script)
            // Cut short after every third record, the session still ends (the peer hangs up): no hang, no trap,
            // whatever was answered so far. (Every record's prefix is what the fuzzer's seeds cover; here a
            // sample keeps the suite's other socket tests from waiting behind dozens of sessions.)
            var offset = 0
            var record = 0
            while offset < script.count {
                if record % 3 == 0 { FuzzTarget.attClient.run(Array(script.prefix(offset))) }
                offset += 1 + Int(script[offset])
                record += 1
            }
        }
    }

    @Test("Hand-written hostile inputs for every target")
    func hostileInputs() async {
        let inputs: [FuzzTarget: [[UInt8]]] = [
            .nmea: [Array("$GPRMC,,,,,,,,,,,*00\r\n$GPGGA,999999.99,9999.9999,N,99999.9999,E,9,99,99.9,-99999.9,M,,,,*00\n".utf8),
                    Array(repeating: 0x24, count: 5000), Array("$GPGSV,9,9,99,".utf8) + Array(repeating: 0x2C, count: 300)],
            .heartRate: [[], [0x01], [0x1F, 0xFF, 0xFF, 0xFF, 0xFF], [0x10] + Array(repeating: 0xFF, count: 600)],
            .csc: [[0x03], [0xFF] + Array(repeating: 0xFF, count: 20)],
            .power: [[0xFF, 0xFF], [0xFF, 0xFF] + Array(repeating: 0x80, count: 40)],
            .attPDU: [[], [0x11, 0x00], [0x11, 0x06, 0, 0], [0x09, 0xFF], [0x05, 0x02] + Array(repeating: 0, count: 17)],
            .attClient: [[1, 0x11], [3, 0x03, 0x00, 0x00, 6, 0x11, 0x06, 0x00, 0x00, 0xFF, 0xFF], Array(repeating: 0xFF, count: 300)],
            .management: [[], [0x12, 0x00, 0x00, 0x00, 0xFF, 0xFF], [0x12, 0x00, 0x00, 0x00, 0x0E, 0x00] + Array(repeating: 0xFF, count: 14)],
            .advertising: [[0xFF], [0x02, 0x01], [0x11, 0x07] + Array(repeating: 0, count: 10), [0x00, 0x05, 0x09]],
            .config: [Array("[a.b.c]\nx = [[[[[[1]]]]]]\n".utf8), Array("a = \"\\u0000\"\n".utf8), [0xFF, 0xFE, 0x00], Array("[[sensor]]\n[[sensor]]\nkind = 1\n".utf8)],
            // A header claiming 4 GB of data, a definition of 255 fields of 255 bytes, a record of a type never defined.
            .fit: [[14, 0x20, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF] + Array(".FIT".utf8) + [0, 0],
                   [12, 0x10, 0, 0, 0x40, 0, 0, 0] + Array(".FIT".utf8) + [0x40, 0, 0, 20, 0, 255] + Array(repeating: 0xFF, count: 765),
                   [12, 0x10, 0, 0, 2, 0, 0, 0] + Array(".FIT".utf8) + [0x05, 0x00]],
            // A token that expires at the end of time, an activity id of 10^300, a duplicate of nothing, 429 with
            // limits that are not numbers, a pasted address with no code.
            .trainingSite: [[0, 100] + Array(#"{"access_token":"a","refresh_token":"r","expires_at":1e308}"#.utf8),
                            [0, 101] + Array(#"{"id":1e300,"activity_id":-1,"error":"duplicate of activity "}"#.utf8),
                            [1, 73] + Array("x,y {} ,".utf8), [1, 74] + Array("http://localhost/exchange_token?code=".utf8), [0xFF, 0xFF]],
        ]
        #expect(Set(inputs.keys) == Set(FuzzTarget.allCases))
        await offPool { for (target, cases) in inputs { for input in cases { target.run(input) } } }
    }
}
