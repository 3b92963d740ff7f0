import RidegateCore
import RidegateTestSupport
import Testing

@Suite struct NMEAFramingTests {
    func frame(_ text: String) -> Result<NMEAFrame, NMEAFramingError> { NMEAFraming.frame(Array(text.utf8)) }

    @Test("A valid sentence frames into its address and fields")
    func validSentence() throws {
        let f = try frame("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n").get()
        #expect(f.address == "GPRMC")
        #expect(f.talker == "GP")
        #expect(f.sentenceType == "RMC")
        #expect(f.fieldCount == 12)
        #expect(String(decoding: f.field(9), as: UTF8.self) == "230394")
        #expect(f.hadChecksum)
    }

    @Test("A wrong checksum is rejected with both values")
    func badChecksum() {
        #expect(frame("$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6B")
                == .failure(.badChecksum(expected: 0x6B, computed: 0x6A)))
    }

    @Test("Two sentences collided on one line are rejected")
    func collided() {
        #expect(frame("$GPGGA,123519,4807.0$GPRMC,123519,A*6A") == .failure(.collided))
        #expect(frame("$GPRMC,1*4D$GPGGA,1*4D") == .failure(.collided))
    }

    @Test("A whole sentence after a collision is kept (the head is lost), as gpsd keeps it")
    func collisionTailKept() throws {
        // From gpsd's triton400 capture, line 12: gpsd reports this GLL's position.
        let line = "$GPGGA,030130$GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A*41"
        let tail = try frame(line).get()
        #expect(tail.address == "GPGLL" && tail.hadChecksum && tail.fieldCount == 8)
        // The tail must carry a valid checksum: otherwise nothing is kept and the line counts as collided.
        #expect(frame("$GPGGA,030130$GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A*42") == .failure(.collided))
        #expect(frame("$GPGGA,030130$GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A") == .failure(.collided))
    }

    @Test("Binary noise before the start delimiter is skipped; inside a sentence it is rejected")
    func junk() throws {
        let noisy: [UInt8] = [0xB5, 0x62, 0x01] + Array("$GPZDA,160012.71,11,03,2004,-1,00*7D".utf8)
        #expect(try NMEAFraming.frame(noisy).get().address == "GPZDA")
        #expect(NMEAFraming.frame(Array("$GPZDA,16".utf8) + [0x01] + Array("0012.71*7D".utf8)) == .failure(.binaryJunk))
        #expect(frame("no sentence here") == .failure(.noStartDelimiter))
        #expect(frame("\r\n") == .failure(.empty))
    }

    @Test("Lines over the limit are rejected")
    func overlong() {
        let long = "$GPTXT," + String(repeating: "A", count: 130)
        #expect(frame(long) == .failure(.overlong(length: long.count)))
    }

    @Test("The decoder's outcome says why a line was not used")
    func outcomes() {
        let d = NMEADecoder()
        #expect(d.decode(line: Array(NMEAText.sentence("PGRME,15.0,M,45.0,M,25.0,M").utf8)) == .ignored(address: "PGRME"))
        #expect(d.decode(line: Array(NMEAText.sentence("GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031").utf8)) == .ignored(address: "GPGST"))
        #expect(d.decode(line: Array(NMEAText.sentence("GPXYZ,1,2").utf8)) == .unknown(address: "GPXYZ"))
        if case .tooShort(let address, _) = d.decode(line: Array(NMEAText.sentence("GPRMC,123519,A").utf8)) {
            #expect(address == "GPRMC")
        } else {
            Issue.record("a truncated RMC must be too short")
        }
    }
}
