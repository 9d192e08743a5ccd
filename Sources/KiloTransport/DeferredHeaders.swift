import Foundation

/// A response's header fields, made from their source the first time anyone asks for them.
///
/// Converting a URL session's `allHeaderFields` into ``HTTPHeaders`` costs about 9,000
/// instructions per response on Linux (a dictionary cast, then a cast for every name and
/// value), nearly 2% of a small request on loopback; a JSON result never reads the headers.
///
/// `@unchecked Sendable`: `state` is only touched while `lock` is held.
final class DeferredHeaders: @unchecked Sendable {
    private enum State {
        case pending(@Sendable () -> HTTPHeaders)
        case made(HTTPHeaders)
    }

    private let lock = Lock()
    private var state: State

    /// Creates headers that `makeHeaders` makes when they are first read.
    ///
    /// - Parameter makeHeaders: Makes the fields; it runs at most once.
    init(_ makeHeaders: @escaping @Sendable () -> HTTPHeaders) {
        state = .pending(makeHeaders)
    }

    /// The fields, made now if they have not been yet.
    var headers: HTTPHeaders {
        lock.withLock {
            switch state {
            case .made(let headers):
                return headers
            case .pending(let makeHeaders):
                let headers = makeHeaders()
                state = .made(headers)
                return headers
            }
        }
    }
}
