import Foundation

/// A request stopped because a response passed one of its limits.
///
/// Each names the limit it passed, so that a caller can raise it where a large response is
/// expected (see `WebServiceProxy.limits`).
public struct LimitError: Error, Sendable, Hashable {
    private enum Code: Hashable, Sendable {
        case bodyTooLarge
        case fileTooLarge
        case deadlineExceeded
        case unreadTooLarge
    }

    private let code: Code
    /// The limit: a number of bytes, or of seconds for a deadline.
    public let limit: Double

    private init(_ code: Code, limit: Double) {
        self.code = code
        self.limit = limit
    }

    /// The body collected in memory passed `limit` bytes (`maximumBodySize`).
    public static func bodyTooLarge(limit: Int) -> LimitError {
        LimitError(.bodyTooLarge, limit: Double(limit))
    }

    /// The body written to a file passed `limit` bytes (`maximumDownloadSize`).
    public static func fileTooLarge(limit: Int64) -> LimitError {
        LimitError(.fileTooLarge, limit: Double(limit))
    }

    /// The request, response body included, took longer than `seconds` (`deadline`).
    public static func deadlineExceeded(after seconds: TimeInterval) -> LimitError {
        LimitError(.deadlineExceeded, limit: seconds)
    }

    /// More than `limit` bytes of a streamed response waited for a reader slower than the server
    /// (`maximumUnreadSize`): a transport that cannot slow the server down keeps them, on disk
    /// past the first MiB, only up to this bound.
    public static func unreadTooLarge(limit: Int) -> LimitError {
        LimitError(.unreadTooLarge, limit: Double(limit))
    }

    /// The name of the setting that holds the limit, such as `maximumBodySize`.
    public var name: String {
        switch code {
        case .bodyTooLarge: "maximumBodySize"
        case .fileTooLarge: "maximumDownloadSize"
        case .deadlineExceeded: "deadline"
        case .unreadTooLarge: "maximumUnreadSize"
        }
    }
}

extension LimitError: LocalizedError {
    /// What passed which limit.
    public var errorDescription: String? {
        let bytes = Int64(limit)
        switch code {
        case .bodyTooLarge:
            return "The response body is larger than the limit of \(bytes) bytes (maximumBodySize)."
        case .fileTooLarge:
            return "The downloaded file is larger than the limit of \(bytes) bytes (maximumDownloadSize)."
        case .deadlineExceeded:
            return "The request took longer than its deadline of \(limit) seconds."
        case .unreadTooLarge:
            return
                "More than \(bytes) bytes of the response waited for a reader slower than the server (maximumUnreadSize)."
        }
    }
}

extension LimitError: CustomStringConvertible {
    /// The error's description, for logs and test failures.
    public var description: String {
        "LimitError(\(name)): \(errorDescription ?? "")"
    }
}
