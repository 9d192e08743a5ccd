import Foundation
import KiloTransport
import Testing

@Suite struct RequestErrorTests {
    @Test func errorsWithTheSameCauseAndSubjectAreEqual() {
        #expect(RequestError.invalidHeaderName("X A") == .invalidHeaderName("X A"))
        #expect(RequestError.invalidHeaderValue("X-Token") == .invalidHeaderValue("X-Token"))
        #expect(RequestError.invalidPath("a b") == .invalidPath("a b"))
        #expect(RequestError.invalidMethod("G T") == .invalidMethod("G T"))
        #expect(RequestError.invalidTimeout(-1) == .invalidTimeout(-1))
    }

    @Test func errorsWithDifferentCausesOrSubjectsDiffer() {
        #expect(RequestError.invalidHeaderName("X") != .invalidHeaderValue("X"))
        #expect(RequestError.invalidHeaderValue("X") != .invalidPath("X"))
        #expect(RequestError.invalidHeaderValue("X") != .invalidHeaderValue("Y"))
        #expect(RequestError.invalidTimeout(0) != .invalidTimeout(-1))
        let all: Set<RequestError> = [
            .invalidMethod("X"), .invalidHeaderName("X"), .invalidHeaderValue("X"), .invalidPath("X"),
            .invalidTimeout(0), .bodyNotAllowed("X"), .pathLeavesBaseURL("X"), .backgroundSession("X"),
            .headersTooLarge("X"), .bodyFileChanged("X"),
        ]
        #expect(all.count == 10)
    }

    @Test(arguments: [
        (RequestError.invalidHeaderName("X A"), "X A"),
        (.invalidHeaderValue("X-Token"), "X-Token"),
        (.invalidPath("//bad"), "//bad"),
        (.invalidMethod("GET X"), "GET X"),
        (.invalidTimeout(-2.5), "-2.5"),
        (.invalidTimeout(.nan), "nan"),
        (.bodyNotAllowed("GET"), "GET"),
        (.pathLeavesBaseURL("//other/x"), "//other/x"),
        (.backgroundSession("org.example.uploads"), "org.example.uploads"),
        (.headersTooLarge("X-Huge"), "X-Huge"),
        (.bodyFileChanged("/tmp/body.bin"), "/tmp/body.bin"),
    ])
    func subjectIsTheNameOrPathAtFault(error: RequestError, subject: String) {
        #expect(error.subject == subject)
    }

    @Test(arguments: [
        (RequestError.invalidHeaderName("X A"), #"The header name "X A" is not a valid HTTP token."#),
        (
            .invalidHeaderValue("X-Token"),
            #"The value of header "X-Token" holds a control character, such as a line break."#
        ),
        (.invalidPath("//bad"), #"The path "//bad" does not form a valid HTTP URL."#),
        (.invalidMethod("GET X"), #"The method "GET X" is not a valid HTTP token."#),
        (.invalidTimeout(0), "The timeout 0.0 is not a positive number of seconds."),
        (.bodyNotAllowed("GET"), "A GET request cannot have a body."),
        (
            .pathLeavesBaseURL("//other/x"),
            #"The path "//other/x" leads away from the base URL: another scheme, host or port, or user info."#
        ),
        (
            .backgroundSession("org.example.uploads"),
            #"The background session "org.example.uploads" cannot carry Kilo's requests; use .default or .ephemeral."#
        ),
        (.headersTooLarge("X-Huge"), #"The header fields pass 65536 bytes at "X-Huge"."#),
        (.bodyFileChanged("/tmp/body.bin"), #"The body file "/tmp/body.bin" changed size while it was being sent."#),
    ])
    func localizedDescriptionNamesTheProblem(error: RequestError, description: String) {
        #expect(error.errorDescription == description)
        #expect(error.localizedDescription == description)
    }

    /// `print(error)` and string interpolation show the description, not the private storage
    /// (with a memory address in it) that Swift's default reflection would print.
    @Test func printingAnErrorShowsItsCauseSubjectAndSentence() {
        #expect(
            String(describing: RequestError.invalidPath("http://[::1"))
                == #"RequestError.invalidPath("http://[::1"): The path "http://[::1" does not form a valid HTTP URL."#
        )
        #expect(
            "\(RequestError.invalidTimeout(-1))"
                == "RequestError.invalidTimeout(-1.0): The timeout -1.0 is not a positive number of seconds."
        )
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
