import Foundation
import KiloCore
import KiloTransport

/// Encoding request bodies and decoding responses as JSON, with the proxy's coders.
extension WebServiceProxy {
    /// Encodes a body as JSON with a coder from ``makeJSONEncoder``, and checks that what the
    /// coder wrote is JSON.
    ///
    /// - Throws: `EncodingError` if the body cannot be encoded, or if the encoder wrote a token
    ///   that is not JSON (a `Decimal` that is not a number, which `JSONEncoder` writes as `NaN`).
    func jsonContent<B: Encodable>(_ body: B) throws -> Content {
        let data = try (currentSettings.makeJSONEncoder ?? JSONCoding.makeEncoder)().encode(body)
        try JSONValidator.validate(data)
        return Content(data: data, type: "application/json")
    }

    /// A function that decodes a response as JSON, with a coder from ``makeJSONDecoder`` as the
    /// proxy's settings have it now, when the request starts; without a coder of its own, with
    /// the one decoder all responses share.
    func decodingJSON<T: Decodable>() -> (TransportResponse) throws -> T {
        guard let makeDecoder = currentSettings.makeJSONDecoder else {
            return { response in try ResponseMapper.decoded(from: response) }
        }
        return { response in try ResponseMapper.decoded(from: response, using: makeDecoder()) }
    }
}
