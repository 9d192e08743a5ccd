import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    // Linux: a data task cancelled during its cache lookup can crash the process.
    //
    // Behaviour handled (swift-corelibs-foundation, Swift 6.3.1): the lookup made when a task is
    // resumed is answered on a background queue, and a cancellation that comes before the answer
    // races the start it releases ("Trying to access a behaviour for a task that in not in the
    // registry").
    // Tests: URLSessionTransport+CancellationTests (cancelling at once, many times over).
    // Remove when corelibs answers a task's lookup before `resume()` returns, or tolerates the race.
    /// A URL cache that keeps its responses in another cache and answers a data task's lookup at
    /// once, on the calling thread: the cache of a session that ``URLSessionTransport`` owns on
    /// Linux.
    ///
    /// swift-corelibs-foundation looks up a data task's cached response when the task is resumed,
    /// before it sends anything, and `URLCache` answers on a background queue. A task cancelled
    /// before that answer arrives can crash the process (`Trying to access a behaviour for a task
    /// that in not in the registry`): the cancellation and the start that the answer releases
    /// race. Answered at once, the lookup is over before `resume()` returns, and no cancellation
    /// can come between; each request is also spared a hand-off to a background-priority thread.
    ///
    /// Everything else goes to the other cache, so responses are stored where the configuration
    /// says, and shared with whatever else uses that cache.
    final class ImmediateLookupURLCache: URLCache, @unchecked Sendable {
        /// The cache that keeps the responses.
        let storage: URLCache

        /// Creates a cache that keeps its responses in `storage`.
        ///
        /// - Parameter storage: The cache that keeps the responses.
        init(storingIn storage: URLCache) {
            self.storage = storage
            // The superclass's own storage stays empty. Given no directory, it would make one in
            // the user's caches directory; an existing directory keeps it from making any.
            super.init(memoryCapacity: 0, diskCapacity: 0, diskPath: FileManager.default.temporaryDirectory.path)
        }

        override func getCachedResponse(
            for dataTask: URLSessionDataTask,
            completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
        ) {
            completionHandler(dataTask.currentRequest.flatMap { storage.cachedResponse(for: $0) })
        }

        override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
            storage.cachedResponse(for: request)
        }

        override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {
            storage.storeCachedResponse(cachedResponse, for: request)
        }

        override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {
            storage.storeCachedResponse(cachedResponse, for: dataTask)
        }

        override func removeCachedResponse(for request: URLRequest) {
            storage.removeCachedResponse(for: request)
        }

        override func removeCachedResponse(for dataTask: URLSessionDataTask) {
            storage.removeCachedResponse(for: dataTask)
        }

        override func removeAllCachedResponses() {
            storage.removeAllCachedResponses()
        }

        override func removeCachedResponses(since date: Date) {
            storage.removeCachedResponses(since: date)
        }

        override var memoryCapacity: Int {
            get { storage.memoryCapacity }
            set { storage.memoryCapacity = newValue }
        }

        override var diskCapacity: Int {
            get { storage.diskCapacity }
            set { storage.diskCapacity = newValue }
        }

        override var currentMemoryUsage: Int {
            storage.currentMemoryUsage
        }

        override var currentDiskUsage: Int {
            storage.currentDiskUsage
        }
    }
#endif
