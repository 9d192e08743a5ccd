import Foundation
import KiloTransport
import Testing

@Suite struct RequestErrorTests {
    @Test func errorsWithTheSameCauseAndSubjectAreEqual() {
        #expect(RequestError.invalidHeaderName("X A") == .invalidHeaderName("X A"))
        #expect(RequestError.invalidHeaderValue("X-Token") == .invalidHeaderValue("X-Token"))
        #expect(RequestError.invalidPath("a b") == .invalidPath("a b"))
    }

    @Test func errorsWithDifferentCausesOrSubjectsDiffer() {
        #expect(RequestError.invalidHeaderName("X") != .invalidHeaderValue("X"))
        #expect(RequestError.invalidHeaderValue("X") != .invalidPath("X"))
        #expect(RequestError.invalidHeaderValue("X") != .invalidHeaderValue("Y"))
        let all: Set<RequestError> = [.invalidHeaderName("X"), .invalidHeaderValue("X"), .invalidPath("X")]
        #expect(all.count == 3)
    }

    @Test(arguments: [
        (RequestError.invalidHeaderName("X A"), "X A"),
        (.invalidHeaderValue("X-Token"), "X-Token"),
        (.invalidPath("//bad"), "//bad"),
    ])
    func subjectIsTheNameOrPathAtFault(error: RequestError, subject: String) {
        #expect(error.subject == subject)
    }

    @Test(arguments: [
        (RequestError.invalidHeaderName("X A"), #"The header name "X A" is not a valid HTTP token."#),
        (.invalidHeaderValue("X-Token"), #"The value of header "X-Token" contains a line break or NUL."#),
        (.invalidPath("//bad"), #"The path "//bad" does not form a valid HTTP URL."#),
    ])
    func localizedDescriptionNamesTheProblem(error: RequestError, description: String) {
        #expect(error.errorDescription == description)
        #expect(error.localizedDescription == description)
    }

    @Test func canBeMatchedInACatchClause() {
        var matched = false
        do {
            throw RequestError.invalidHeaderValue("X-Token")
        } catch let error as RequestError where error == .invalidHeaderValue("X-Token") {
            matched = true
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(matched)
    }
}
