import Foundation

/// A response's header fields, read from their source the first time anyone asks for them.
///
/// Converting a URL session's `allHeaderFields` into ``HTTPHeaders`` costs about 10,000
/// instructions per response on Linux (a dictionary cast, then a cast for every name and
/// value), nearly 2% of a small request on loopback; a JSON result never reads the headers.
///
/// `@unchecked Sendable`: `read` and `fields` are only touched while `lock` is held, and `read`
/// is dropped once it has run.
final class DeferredHeaders: @unchecked Sendable {
    private let lock = NSLock()
    private var read: (@Sendable () -> HTTPHeaders)?
    private var fields: HTTPHeaders?

    /// - Parameter read: Makes the fields; it runs at most once.
    init(_ read: @escaping @Sendable () -> HTTPHeaders) {
        self.read = read
    }

    /// The fields, read now if they have not been yet.
    var headers: HTTPHeaders {
        lock.withLock {
            if let fields {
                return fields
            }
            let read = self.read.map { $0() } ?? HTTPHeaders()
            fields = read
            self.read = nil
            return read
        }
    }
}
