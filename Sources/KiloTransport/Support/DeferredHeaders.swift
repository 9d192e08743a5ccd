import Foundation

/// A response's header fields, made from their source the first time anyone asks for them.
///
/// Converting a URL session's `allHeaderFields` into ``HTTPHeaders`` on Linux casts the
/// dictionary and then every name and value, a visible part of a small request; a JSON result
/// never reads the headers.
///
/// It is the lock and its state in one object: on Linux, a response pays for one allocation
/// here.
typealias DeferredHeaders = Locked<DeferredHeaderState>

/// Whether a response's header fields are still to be made, or made.
enum DeferredHeaderState: Sendable {
    case pending(@Sendable () -> HTTPHeaders)
    case made(HTTPHeaders)
}

extension Locked where Value == DeferredHeaderState {
    /// Creates headers that `makeHeaders` makes when they are first read.
    ///
    /// - Parameter makeHeaders: Makes the fields; it runs at most once.
    convenience init(_ makeHeaders: @escaping @Sendable () -> HTTPHeaders) {
        self.init(.pending(makeHeaders))
    }

    /// The fields, made now if they have not been yet.
    var headers: HTTPHeaders {
        withLock { state in
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
