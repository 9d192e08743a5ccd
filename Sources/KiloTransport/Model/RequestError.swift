import Foundation

/// A request that cannot be sent as it was described.
///
/// Kilo throws this before anything goes on the wire, so a bad request is never sent
/// half-formed. Compare with the static members:
///
/// ```swift
/// catch let error as RequestError where error == .invalidHeaderValue("X-Token") { … }
/// ```
public struct RequestError: Error, Sendable, Hashable {
    private enum Code: Hashable, Sendable {
        case invalidMethod
        case invalidHeaderName
        case invalidHeaderValue
        case invalidPath
        case pathLeavesBaseURL
        case invalidTimeout
        case bodyNotAllowed
        case backgroundSession
        case headersTooLarge
        case bodyFileChanged
    }

    private let code: Code

    /// The method, header name, path or timeout at fault, as text.
    public let subject: String

    private init(_ code: Code, subject: String) {
        self.code = code
        self.subject = subject
    }

    /// A method's name is empty or holds a character that is not allowed in a method, such as a
    /// space or a line break (methods are RFC 9110 tokens, as header names are).
    ///
    /// - Parameter method: The method's name.
    /// - Returns: The error.
    public static func invalidMethod(_ method: String) -> RequestError {
        RequestError(.invalidMethod, subject: method)
    }

    /// A header's name is empty or holds a character that is not allowed in a header name.
    ///
    /// - Parameter name: The header's name.
    /// - Returns: The error.
    public static func invalidHeaderName(_ name: String) -> RequestError {
        RequestError(.invalidHeaderName, subject: name)
    }

    /// A header's value holds a carriage return, line feed or NUL, or (over
    /// `AsyncHTTPClientTransport`, whose client refuses them) another control character but tab.
    ///
    /// - Parameter name: The header's name.
    /// - Returns: The error.
    public static func invalidHeaderValue(_ name: String) -> RequestError {
        RequestError(.invalidHeaderValue, subject: name)
    }

    /// A path does not form a valid HTTP URL against the base URL.
    ///
    /// - Parameter path: The path as given.
    /// - Returns: The error.
    public static func invalidPath(_ path: String) -> RequestError {
        RequestError(.invalidPath, subject: path)
    }

    /// A path leads away from the base URL: to another scheme, host or port, or with user info
    /// (`//other.example/x`, `http://other.example:8080/x`, `http://api@api.example.com/x`).
    ///
    /// A proxy refuses such a path unless its `allowsAbsoluteURLs` is set, because the request
    /// would carry the proxy's headers, such as its `Authorization`, to whoever the path names.
    ///
    /// - Parameter path: The path as given.
    /// - Returns: The error.
    public static func pathLeavesBaseURL(_ path: String) -> RequestError {
        RequestError(.pathLeavesBaseURL, subject: path)
    }

    /// A timeout is not a positive number of seconds: zero, negative or NaN. (An infinite one
    /// means no limit.)
    ///
    /// - Parameter timeoutInterval: The timeout as given.
    /// - Returns: The error.
    public static func invalidTimeout(_ timeoutInterval: TimeInterval) -> RequestError {
        RequestError(.invalidTimeout, subject: String(describing: timeoutInterval))
    }

    /// A request of a method that cannot carry a body has one: a `GET` or `HEAD` with a file
    /// body, or with data that is not empty.
    ///
    /// `URLSession` refuses a `GET` with a body on every platform, with a misleading
    /// `URLError.dataLengthExceedsMaximum` ("resource exceeds maximum size"), and on Linux sends
    /// a `HEAD` without its body (but with its `Content-Type`). Kilo refuses both with this error
    /// before anything is sent, whatever the transport, so that a request that works over one
    /// transport (or through a ``FakeTransport``) works over any, and no body is lost on the way.
    /// Send the content with another method, such as `POST`, or in the query string.
    ///
    /// - Parameter method: The method's name.
    /// - Returns: The error.
    public static func bodyNotAllowed(_ method: String) -> RequestError {
        RequestError(.bodyNotAllowed, subject: method)
    }
}

extension RequestError {
    /// A background session's configuration (its identifier) cannot carry Kilo's requests:
    /// Apple allows neither data tasks nor completion handlers there. Nothing is sent.
    public static func backgroundSession(_ identifier: String) -> RequestError {
        RequestError(.backgroundSession, subject: identifier)
    }
}

extension RequestError {
    /// The request's header fields pass ``HTTPHeaders/maximumSize`` at the field `name`.
    /// Nothing is sent.
    public static func headersTooLarge(_ name: String) -> RequestError {
        RequestError(.headersTooLarge, subject: name)
    }
}

extension RequestError {
    /// The file at `path`, a request's body, changed size while it was being sent: the request
    /// is stopped, having sent no more bytes than the length it announced (except over Linux's
    /// `URLSession`, which may send some first: Docs/Linux.md).
    public static func bodyFileChanged(_ path: String) -> RequestError {
        RequestError(.bodyFileChanged, subject: path)
    }
}

extension RequestError: LocalizedError {
    /// A sentence that names the problem.
    public var errorDescription: String? {
        switch code {
        case .invalidMethod: return "The method \"\(subject)\" is not a valid HTTP token."
        case .invalidHeaderName: return "The header name \"\(subject)\" is not a valid HTTP token."
        case .invalidHeaderValue:
            return "The value of header \"\(subject)\" holds a control character, such as a line break."
        case .invalidPath: return "The path \"\(subject)\" does not form a valid HTTP URL."
        case .pathLeavesBaseURL:
            return "The path \"\(subject)\" leads away from the base URL: another scheme, host or port, or user info."
        case .invalidTimeout: return "The timeout \(subject) is not a positive number of seconds."
        case .bodyNotAllowed: return "A \(subject) request cannot have a body."
        case .backgroundSession:
            return "The background session \"\(subject)\" cannot carry Kilo's requests; use .default or .ephemeral."
        case .headersTooLarge:
            return "The header fields pass \(HTTPHeaders.maximumSize) bytes at \"\(subject)\"."
        case .bodyFileChanged:
            return "The body file \"\(subject)\" changed size while it was being sent."
        }
    }
}

extension RequestError: CustomStringConvertible {
    /// The cause, spelled as the static member that makes it, and the error's sentence: what
    /// `print(error)`, string interpolation and test failures show.
    ///
    /// For example, `RequestError.invalidPath("http://[::1"): The path "http://[::1" does not form a valid HTTP URL.`
    public var description: String {
        let cause: String
        switch code {
        case .invalidMethod: cause = "invalidMethod"
        case .invalidHeaderName: cause = "invalidHeaderName"
        case .invalidHeaderValue: cause = "invalidHeaderValue"
        case .invalidPath: cause = "invalidPath"
        case .pathLeavesBaseURL: cause = "pathLeavesBaseURL"
        case .invalidTimeout: cause = "invalidTimeout"
        case .bodyNotAllowed: cause = "bodyNotAllowed"
        case .backgroundSession: cause = "backgroundSession"
        case .headersTooLarge: cause = "headersTooLarge"
        case .bodyFileChanged: cause = "bodyFileChanged"
        }
        let argument = code == .invalidTimeout ? subject : String(reflecting: subject)
        return "RequestError.\(cause)(\(argument)): \(errorDescription ?? "")"
    }
}
