import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: a caller's session cannot report a body as it arrives to Kilo.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): a task's response and body go
    // only to its session's delegate (see SessionRouter), which on your session is yours, or none.
    // So a transport made with your session sends through a companion session: one per session
    // of yours, made once, with a copy of its configuration (cookies, cache, headers, proxies,
    // timeouts) and the router as its delegate, on an `ImmediateOperationQueue`, as a session Kilo
    // owns: its events run inline on the session's work queue. Your session's delegate is still
    // asked about redirects and challenges, on its own queue.
    // Tests: the integration suites with the caller's session (KILO_TEST_SESSION unset).
    // Remove with SessionRouter.
    extension URLSession {
        /// The companion sessions made so far, each beside the session of yours it serves.
        private static let companions = Locked<[ObjectIdentifier: (owner: WeakSession, companion: URLSession)]>([:])

        /// A weak reference to a caller's session.
        private struct WeakSession: @unchecked Sendable {
            // `@unchecked Sendable`: URLSession is thread-safe; the reference is only compared.
            weak var session: URLSession?
        }

        /// The session that sends Kilo's requests for this one: made on first use, with a copy of
        /// this session's configuration as a session Kilo owns prepares it, and kept while this
        /// session lives. Companions of sessions that are gone are invalidated.
        var kiloCompanion: URLSession {
            let key = ObjectIdentifier(self)
            let (companion, abandoned) = Self.companions.withLock { companions -> (URLSession, [URLSession]) in
                if let entry = companions[key], entry.owner.session === self {
                    return (entry.companion, [])
                }
                let abandoned = companions.filter { $0.value.owner.session == nil }
                for key in abandoned.keys {
                    companions[key] = nil
                }
                let companion = URLSession(
                    configuration: configuration.preparedForKilo(),
                    delegate: SessionRouter.shared,
                    delegateQueue: ImmediateOperationQueue()
                )
                companions[key] = (WeakSession(session: self), companion)
                return (companion, abandoned.values.map(\.companion))
            }
            for session in abandoned {
                session.finishTasksAndInvalidate()
            }
            return companion
        }
    }
#endif
