import Foundation
import KiloCore
import KiloTransport
import Testing

@Suite struct ResponseMapperTests {
    private struct User: Decodable, Equatable {
        var id: Int
        var name: String
        var joined: Date
    }

    private let userJSON = Data(#"{"id":9,"name":"Ann","joined":1700000000123}"#.utf8)

    @Test(arguments: [200, 201, 204, 299])
    func successStatusPasses(statusCode: Int) throws {
        try ResponseMapper.validate(TransportResponse(statusCode: statusCode))
    }

    @Test(arguments: [100, 199, 300, 304, 400, 404, 500, 599])
    func otherStatusThrowsWebServiceErrorWithBodyAndHeaders(statusCode: Int) {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "Retry-After": "5"]
        let body = Data("go away".utf8)
        #expect(throws: WebServiceError(statusCode: statusCode, headers: headers, body: body)) {
            try ResponseMapper.validate(TransportResponse(statusCode: statusCode, headers: headers, body: body))
        }
    }

    @Test func decodesJSONWithMillisecondDates() throws {
        let user: User = try ResponseMapper.decoded(
            from: TransportResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: userJSON)
        )
        #expect(user == User(id: 9, name: "Ann", joined: Date(timeIntervalSince1970: 1_700_000_000.123)))
    }

    @Test func decodesIntoAnOptional() throws {
        let user: User? = try ResponseMapper.decoded(from: TransportResponse(statusCode: 200, body: userJSON))
        #expect(user?.id == 9)
    }

    @Test func emptyBodyIsNilForAnOptional() throws {
        let user: User? = try ResponseMapper.decoded(from: TransportResponse(statusCode: 204))
        #expect(user == nil)
        let number: Int? = try ResponseMapper.decoded(from: TransportResponse(statusCode: 200))
        #expect(number == nil)
    }

    @Test func jsonNullIsNilForAnOptional() throws {
        let user: User? = try ResponseMapper.decoded(from: TransportResponse(statusCode: 200, body: Data("null".utf8)))
        #expect(user == nil)
    }

    @Test func emptyBodyThrowsDecodingErrorForANonOptional() {
        #expect(throws: DecodingError.self) {
            let _: User = try ResponseMapper.decoded(from: TransportResponse(statusCode: 204))
        }
    }

    @Test(arguments: ["{", "not json", #"{"id":"nine","name":"Ann","joined":0}"#, #"{"id":9}"#])
    func invalidJSONThrowsDecodingError(body: String) {
        #expect(throws: DecodingError.self) {
            let _: User = try ResponseMapper.decoded(from: TransportResponse(statusCode: 200, body: Data(body.utf8)))
        }
    }

    @Test func errorStatusIsCheckedBeforeDecoding() {
        let response = TransportResponse(
            statusCode: 404,
            headers: ["Content-Type": "application/json"],
            body: Data(#"{"message":"no such user"}"#.utf8)
        )
        let error = #expect(throws: WebServiceError.self) {
            let _: User = try ResponseMapper.decoded(from: response)
        }
        #expect(error?.statusCode == 404)
        #expect(error?.body == response.body)
        #expect(error?.headers == response.headers)
        #expect(error?.localizedDescription == "Not Found")
    }

    @Test func errorStatusWithEmptyBodyThrowsEvenForAnOptional() {
        #expect(throws: WebServiceError(statusCode: 500)) {
            let _: User? = try ResponseMapper.decoded(from: TransportResponse(statusCode: 500))
        }
    }

    @Test func handlerGetsTheBodyContentTypeAndHeaders() throws {
        let response = TransportResponse(
            statusCode: 200,
            headers: ["content-type": "text/csv; charset=utf-8", "X-Total": "2"],
            body: Data("a,b\n1,2".utf8)
        )
        let rows = try ResponseMapper.value(from: response) { content, contentType, headers in
            #expect(contentType == "text/csv; charset=utf-8")
            #expect(headers["x-total"] == "2")
            #expect(headers == response.headers)
            return String(decoding: content, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(rows == ["a,b", "1,2"])
    }

    @Test func handlerGetsNilContentTypeWhenThereIsNone() throws {
        let contentType = try ResponseMapper.value(from: TransportResponse(statusCode: 200)) { _, contentType, _ in
            contentType
        }
        #expect(contentType == nil)
    }

    @Test func handlerIsNotCalledForAnErrorStatus() {
        var called = false
        #expect(throws: WebServiceError.self) {
            try ResponseMapper.value(from: TransportResponse(statusCode: 401)) { _, _, _ in
                called = true
            }
        }
        #expect(!called)
    }

    private struct HandlerFailure: Error, Equatable {}

    @Test func handlerErrorsPropagate() {
        #expect(throws: HandlerFailure()) {
            try ResponseMapper.value(from: TransportResponse(statusCode: 200)) { _, _, _ -> Int in
                throw HandlerFailure()
            }
        }
    }
}
