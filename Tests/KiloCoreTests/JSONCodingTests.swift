import Foundation
import KiloCore
import Testing

@Suite struct JSONCodingTests {
    private struct Event: Codable, Equatable {
        var name: String
        var at: Date
    }

    @Test(
        arguments: [
            (0, Date(timeIntervalSince1970: 0)),
            (1_700_000_000_123, Date(timeIntervalSince1970: 1_700_000_000.123)),
            (-86_400_000, Date(timeIntervalSince1970: -86_400)),
        ] as [(Int64, Date)]
    )
    func decoderReadsDatesAsMillisecondsSince1970(milliseconds: Int64, date: Date) throws {
        let json = Data(#"{"name":"launch","at":\#(milliseconds)}"#.utf8)
        let event = try JSONCoding.makeDecoder().decode(Event.self, from: json)
        #expect(abs(event.at.timeIntervalSince(date)) < 0.000_001)
    }

    @Test func encoderWritesDatesAsMillisecondsSince1970() throws {
        let event = Event(name: "launch", at: Date(timeIntervalSince1970: 1_700_000_000.123))
        let data = try JSONCoding.makeEncoder().encode(event)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let milliseconds = try #require(object["at"] as? NSNumber)
        #expect(milliseconds.doubleValue.rounded() == 1_700_000_000_123)
    }

    @Test func datesRoundTripToTheMillisecond() throws {
        let event = Event(name: "launch", at: Date(timeIntervalSince1970: 1_234_567_890.5))
        let decoded = try JSONCoding.makeDecoder().decode(Event.self, from: JSONCoding.makeEncoder().encode(event))
        #expect(decoded == event)
    }

    /// Milliseconds that a `Date` cannot hold exactly: read back, they differ from the whole
    /// number by a few ten-thousandths, which `JSONEncoder`'s own strategy writes out.
    @Test(
        arguments: [
            1, -1, 123, -631_117_939_101, 946_684_800_001, 1_700_000_000_123, -62_135_596_800_001, 253_402_300_799_999,
        ] as [Int64]
    )
    func wholeMillisecondsAreWrittenBackAsTheSameWholeNumber(milliseconds: Int64) throws {
        let dates = try JSONCoding.makeDecoder().decode([Date].self, from: Data("[\(milliseconds)]".utf8))
        let written = try JSONCoding.makeEncoder().encode(dates)
        #expect(String(decoding: written, as: UTF8.self) == "[\(milliseconds)]")
    }

    @Test func aDateMadeFromWholeMillisecondsIsWrittenAsThem() throws {
        let data = try JSONCoding.makeEncoder().encode([Date(timeIntervalSince1970: 0.001)])
        #expect(String(decoding: data, as: UTF8.self) == "[1]")
    }

    @Test func fractionalMillisecondsAreKept() throws {
        let data = try JSONCoding.makeEncoder().encode([Date(timeIntervalSince1970: 1.5)])
        #expect(String(decoding: data, as: UTF8.self) == "[1500]")
        let fraction = try JSONCoding.makeEncoder().encode([Date(timeIntervalSince1970: 0.0015)])
        let value = try #require(try JSONSerialization.jsonObject(with: fraction) as? [Double])
        #expect(abs(value[0] - 1.5) < 0.001)
    }

    @Test func secondsAreNotMistakenForMilliseconds() throws {
        let json = Data(#"{"name":"launch","at":1700000000}"#.utf8)
        let event = try JSONCoding.makeDecoder().decode(Event.self, from: json)
        #expect(event.at == Date(timeIntervalSince1970: 1_700_000))
    }

    @Test func eachCallMakesANewCoder() {
        #expect(JSONCoding.makeDecoder() !== JSONCoding.makeDecoder())
        #expect(JSONCoding.makeEncoder() !== JSONCoding.makeEncoder())
    }
}
