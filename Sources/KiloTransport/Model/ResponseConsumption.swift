import Foundation

/// How a response is read: its body kept in memory up to a limit, written to a file up to a
/// limit, or handed to the caller as it arrives; how much of an error's body is kept; and by
/// when the whole exchange must end.
///
/// A transport applies it to the body as soon as the head arrives, so that a limit stops a
/// transfer however far ahead of its reader the transport is (see
/// ``Transport/stream(_:consuming:)``); ``Transport/send(_:consuming:)`` reads the body as it
/// says.
///
/// ```swift
/// let response = try await transport.send(request, consuming: .memory(upTo: 1 << 20, deadline: 30))
/// ```
public struct ResponseConsumption: Sendable, Hashable {
    /// Where a successful response's body goes.
    public enum Destination: Sendable, Hashable {
        /// Into memory, whole, up to `limit` bytes (`nil`: no limit); past it,
        /// ``LimitError/bodyTooLarge(limit:)``.
        case memory(limit: Int?)
        /// Into `file`, which it replaces once the body has all arrived, up to `limit` bytes;
        /// past it, ``LimitError/fileTooLarge(limit:)``.
        case file(URL, limit: Int64?)
        /// To the caller, as it arrives, with at most `maximumUnread` bytes waiting for it where
        /// the transport cannot slow the server down; past it, ``LimitError/unreadTooLarge(limit:)``.
        case stream(maximumUnread: Int?)
    }

    /// The most bytes of an error's body worth keeping, 1 MiB: enough for any problem document a
    /// service sends, and a bound on what a hostile one can make a client hold.
    /// (`WebServiceProxy.errorBodyLimit`, and what a decorator reads of an error for its policy.)
    public static let standardErrorBodyLimit = 1 << 20

    /// Where a successful response's body goes.
    public var destination: Destination
    /// For a status outside 2xx, the most bytes of the body kept in memory, wherever a success's
    /// goes (the rest is not read, and the transfer is cancelled); `nil` reads it as a success's.
    public var errorBodyLimit: Int?
    /// The most seconds the exchange may take, from the request until its body's last byte is
    /// read, or `nil` for no limit.
    public var deadline: TimeInterval?

    /// Creates a way to read a response.
    ///
    /// - Parameters:
    ///   - destination: Where a successful response's body goes.
    ///   - errorBodyLimit: The most bytes of an error's body kept, or `nil` to read it as a success's.
    ///   - deadline: The most seconds the exchange may take, or `nil`.
    public init(_ destination: Destination, errorBodyLimit: Int? = nil, deadline: TimeInterval? = nil) {
        self.destination = destination
        self.errorBodyLimit = errorBodyLimit
        self.deadline = deadline
    }

    /// The body in memory, up to `limit` bytes.
    public static func memory(
        upTo limit: Int? = nil,
        errorBodyLimit: Int? = nil,
        deadline: TimeInterval? = nil
    ) -> ResponseConsumption {
        ResponseConsumption(.memory(limit: limit), errorBodyLimit: errorBodyLimit, deadline: deadline)
    }

    /// The body written to `file`, up to `limit` bytes.
    public static func file(
        _ file: URL,
        upTo limit: Int64? = nil,
        errorBodyLimit: Int? = nil,
        deadline: TimeInterval? = nil
    ) -> ResponseConsumption {
        ResponseConsumption(.file(file, limit: limit), errorBodyLimit: errorBodyLimit, deadline: deadline)
    }

    /// The body handed to the caller as it arrives, at most `maximumUnread` bytes waiting for it.
    public static func stream(
        maximumUnread: Int? = ResponseBody.defaultMaximumUnreadSize,
        errorBodyLimit: Int? = nil,
        deadline: TimeInterval? = nil
    ) -> ResponseConsumption {
        ResponseConsumption(.stream(maximumUnread: maximumUnread), errorBodyLimit: errorBodyLimit, deadline: deadline)
    }

    /// Whether a successful response's body is read whole, into memory, before the caller has
    /// it: a decorating transport may then read it itself before it judges an attempt, and retry
    /// one whose body failed.
    public var collectsInMemory: Bool {
        if case .memory = destination { true } else { false }
    }

    /// Checks that the consumption can be carried out.
    ///
    /// - Throws: ``RequestError/invalidTimeout(_:)`` for a deadline that is zero, negative or NaN.
    public func validate() throws {
        if let deadline, !(deadline > 0) {
            throw RequestError.invalidTimeout(deadline)
        }
    }
}
