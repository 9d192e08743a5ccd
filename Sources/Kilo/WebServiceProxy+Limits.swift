import Foundation

extension WebServiceProxy {
    /// How much of a response a proxy keeps, and how long a request may take: the defaults keep
    /// a program safe from a server that sends too much or too slowly, and each can be raised, or
    /// set to `nil` for none, per proxy (``WebServiceProxy/limits``) or per request
    /// (``WebServiceProxy/withLimits(_:)``).
    ///
    /// Sizes count the body's bytes after any `Content-Encoding` is decoded, so a small
    /// compressed "bomb" is stopped at the same size as a large plain body. Past a limit the
    /// transfer is cancelled at once and the request fails with `LimitError`, which names the
    /// limit; memory holds at most the limit and a chunk. (On Linux, `URLSession` first decodes
    /// what it has already received, in the background: a bomb sent whole is decoded to its end,
    /// though none of it is kept, while the process's other URL session requests wait.)
    public struct Limits: Sendable, Hashable {
        /// The most bytes of a response body decoded or returned from memory: 32 MiB by default.
        ///
        /// A JSON document of 32 MiB already becomes several times that in objects; a larger
        /// response belongs in a download (``WebServiceProxy/download(_:path:arguments:to:progress:)``)
        /// or a stream.
        public var maximumBodySize: Int?
        /// The most bytes a download writes to its file: no limit by default.
        public var maximumDownloadSize: Int64?
        /// The most seconds a request may take from start to end, its response body included:
        /// 10 minutes by default. Unlike ``WebServiceProxy/timeoutInterval``, which data resets,
        /// a server that drips a byte at a time cannot stretch it. A streamed response must end
        /// by it too (each connection of a reconnecting event stream, by its own). Set `nil` for
        /// an endless stream or a very long download.
        public var deadline: TimeInterval?
        /// The most bytes one element of a streamed response may hold (a line, a JSON line, or a
        /// server-sent event: its type, last event ID and data together; see
        /// ``WebServiceProxy/stream(_:path:arguments:content:contentType:as:)``): 1 MiB by default. Past it the stream fails with `StreamElementError`, before the
        /// element is kept; `nil` lets an element grow without bound.
        public var maximumElementSize: Int?
        /// The most bytes of a response that may wait for a reader slower than the server:
        /// 64 MiB by default (`ResponseBody.defaultMaximumUnreadSize`). Past it the request or
        /// stream fails with `LimitError`.
        ///
        /// Only URLSession on Linux, which cannot slow a server down, ever keeps so much: it
        /// holds the first MiB in memory and the rest in unnamed temporary files, which give
        /// their space back as the reader catches up, so a stream uses at most this much disk
        /// (and 4 MiB more) whatever the server sends. Elsewhere the transfer pauses while 1 MiB
        /// waits. A download is not bounded by it: what waits for its file is on disk either way,
        /// within ``maximumDownloadSize``. `nil` lets a slow reader fall behind without bound.
        public var maximumUnreadSize: Int?

        /// Creates limits, by default the protective ones.
        ///
        /// - Parameters:
        ///   - maximumBodySize: The most bytes of body kept in memory, or `nil`.
        ///   - maximumDownloadSize: The most bytes a download writes, or `nil`.
        ///   - deadline: The most seconds a request takes, or `nil`.
        ///   - maximumElementSize: The most bytes of one element of a streamed response, or `nil`.
        ///   - maximumUnreadSize: The most bytes that wait for a slow reader, or `nil`.
        public init(
            maximumBodySize: Int? = 32 << 20,
            maximumDownloadSize: Int64? = nil,
            deadline: TimeInterval? = 600,
            maximumElementSize: Int? = 1 << 20,
            maximumUnreadSize: Int? = ResponseBody.defaultMaximumUnreadSize
        ) {
            self.maximumBodySize = maximumBodySize
            self.maximumDownloadSize = maximumDownloadSize
            self.deadline = deadline
            self.maximumElementSize = maximumElementSize
            self.maximumUnreadSize = maximumUnreadSize
        }
    }

    /// The most bytes of an error response's body kept in ``WebServiceError/body``: 1 MiB. The
    /// rest is not read, and the transfer is cancelled.
    public static let errorBodyLimit = ResponseConsumption.standardErrorBodyLimit
}
