import Foundation

/// An argument that cannot be encoded into a request.
///
/// Encoders throw this error before they produce any output, so a request with a bad argument
/// is never sent half-formed. Compare with the static members, or read ``key`` to find the
/// argument at fault:
///
/// ```swift
/// do {
///     _ = try FormEncoder().encode(["doc": .file(url)])
/// } catch let error as ArgumentEncodingError where error == .fileNotAllowed("doc") {
///     // use MultipartEncoder for files
/// }
/// ```
public struct ArgumentEncodingError: Error, Sendable, Hashable {
    private enum Code: Hashable, Sendable {
        case emptyKey
        case fileNotAllowed
        case nonFiniteNumber
        case dateOutOfRange
        case unsupportedValue(type: String)
        case lineBreakInName
        case unreadableFile(URL, reason: String)
        case invalidBoundary(String)
    }

    private let code: Code

    /// The name of the argument at fault (empty for ``emptyKey`` and
    /// ``invalidBoundary(_:)``, which no argument causes).
    public let key: String

    private init(_ code: Code, key: String) {
        self.code = code
        self.key = key
    }

    /// An argument's name is the empty string.
    public static let emptyKey = ArgumentEncodingError(.emptyKey, key: "")

    /// A file was given to an encoder that cannot carry files (query strings and
    /// `application/x-www-form-urlencoded` bodies).
    ///
    /// - Parameter key: The argument's name.
    /// - Returns: The error.
    public static func fileNotAllowed(_ key: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.fileNotAllowed, key: key)
    }

    /// A number is infinite or not a number, and has no textual form a server could read.
    ///
    /// - Parameter key: The argument's name.
    /// - Returns: The error.
    public static func nonFiniteNumber(_ key: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.nonFiniteNumber, key: key)
    }

    /// A date is so far from 1970 that its milliseconds do not fit in 64 bits.
    ///
    /// - Parameter key: The argument's name.
    /// - Returns: The error.
    public static func dateOutOfRange(_ key: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.dateOutOfRange, key: key)
    }

    /// A value's type has no defined encoding (for example a dictionary or a custom class).
    ///
    /// - Parameters:
    ///   - key: The argument's name.
    ///   - type: The name of the value's type.
    /// - Returns: The error.
    public static func unsupportedValue(_ key: String, type: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.unsupportedValue(type: type), key: key)
    }

    /// A multipart part's name or file name holds a carriage return or a line feed, which would
    /// break the part's headers.
    ///
    /// - Parameter key: The argument's name.
    /// - Returns: The error.
    public static func lineBreakInName(_ key: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.lineBreakInName, key: key)
    }

    /// A file argument's contents could not be read.
    ///
    /// - Parameters:
    ///   - key: The argument's name.
    ///   - url: The file.
    ///   - reason: What went wrong, from the underlying error.
    /// - Returns: The error.
    public static func unreadableFile(_ key: String, url: URL, reason: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.unreadableFile(url, reason: reason), key: key)
    }

    /// A ``MultipartEncoder``'s boundary is not one that RFC 2046 allows: 1 to 70 characters,
    /// each an ASCII letter or digit or one of `'()+_,-./:=?` and the space, not ending with a
    /// space. Any other (an empty one, a `"`, a line break) would make a body that servers
    /// cannot split into its parts, or one whose `Content-Type` cannot name it.
    ///
    /// - Parameter boundary: The boundary.
    /// - Returns: The error.
    public static func invalidBoundary(_ boundary: String) -> ArgumentEncodingError {
        ArgumentEncodingError(.invalidBoundary(boundary), key: "")
    }

    /// The file that could not be read, for an ``unreadableFile(_:url:reason:)`` error.
    public var fileURL: URL? {
        if case .unreadableFile(let url, _) = code { return url }
        return nil
    }

    /// Whether this error is an ``unreadableFile(_:url:reason:)`` error, whatever its reason.
    public var isUnreadableFile: Bool {
        fileURL != nil
    }
}

extension ArgumentEncodingError: LocalizedError {
    /// A sentence that names the argument and the problem.
    public var errorDescription: String? {
        switch code {
        case .emptyKey:
            return "An argument has an empty name."
        case .fileNotAllowed:
            return "The argument \"\(key)\" is a file; files can only be sent as multipart/form-data."
        case .nonFiniteNumber:
            return "The argument \"\(key)\" is not a finite number."
        case .dateOutOfRange:
            return "The argument \"\(key)\" is a date too far from 1970 to send as milliseconds."
        case .unsupportedValue(let type):
            return "The argument \"\(key)\" has a value of type \(type), which cannot be sent as an argument."
        case .lineBreakInName:
            return "The argument \"\(key)\" has a line break in its name or file name."
        case .unreadableFile(let url, let reason):
            return "The file \"\(url.path)\" for argument \"\(key)\" cannot be read: \(reason)"
        case .invalidBoundary(let boundary):
            let shown = String(reflecting: boundary)
            return "The multipart boundary \(shown) is not 1 to 70 characters that RFC 2046 allows."
        }
    }
}

extension ArgumentEncodingError: CustomStringConvertible {
    /// The cause, spelled as the static member that makes it, and the error's sentence: what
    /// `print(error)`, string interpolation and test failures show.
    ///
    /// For example, `ArgumentEncodingError.fileNotAllowed("doc"): The argument "doc" is a file; …`.
    public var description: String {
        let cause: String
        switch code {
        case .emptyKey: cause = "emptyKey"
        case .fileNotAllowed: cause = "fileNotAllowed(\(String(reflecting: key)))"
        case .nonFiniteNumber: cause = "nonFiniteNumber(\(String(reflecting: key)))"
        case .dateOutOfRange: cause = "dateOutOfRange(\(String(reflecting: key)))"
        case .unsupportedValue(let type):
            cause = "unsupportedValue(\(String(reflecting: key)), type: \(String(reflecting: type)))"
        case .lineBreakInName: cause = "lineBreakInName(\(String(reflecting: key)))"
        case .unreadableFile: cause = "unreadableFile(\(String(reflecting: key)))"
        case .invalidBoundary(let boundary): cause = "invalidBoundary(\(String(reflecting: boundary)))"
        }
        return "ArgumentEncodingError.\(cause): \(errorDescription ?? "")"
    }
}
