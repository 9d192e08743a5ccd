import Foundation

/// The JSON coders Kilo uses: dates as milliseconds since 1970, both ways.
public enum JSONCoding {
    /// Makes a decoder that reads dates as milliseconds since 1 January 1970.
    ///
    /// - Returns: A new decoder.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    /// Makes an encoder that writes dates as milliseconds since 1 January 1970.
    ///
    /// - Returns: A new encoder.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }
}
