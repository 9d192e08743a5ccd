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
