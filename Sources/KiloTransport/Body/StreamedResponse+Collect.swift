import Foundation

extension StreamedResponse {
    /// Reads the body to its end as `consumption` says: for a status outside 2xx with an error
    /// body limit, that many bytes into memory; otherwise into memory or into a file, within its
    /// limit (a stream's, which has none, into memory), reporting progress as chunks arrive.
    ///
    /// The one function that collects a body: ``Transport/send(_:consuming:)`` and every request
    /// of `WebServiceProxy` read with it.
    ///
    /// - Parameters:
    ///   - consumption: How to read the body.
    ///   - progress: Receives the bytes read so far.
    ///   - sent: The size of the request's body, reported as sent once the response is read.
    ///   - seal: Asked just before a file replaces what was there (see `Deadline.Seal`): `false`
    ///     leaves it as it was, and the call throws `URLError(.cancelled)`.
    /// - Returns: The response with its body, or with an empty body when it went to a file.
    /// - Throws: The transfer's error, ``LimitError`` past a limit (the transfer is cancelled at
    ///   once, and a partial file removed), or the file system's error.
    package func collect(
        _ consumption: ResponseConsumption,
        progress: ProgressObserver?,
        sent: Int64?,
        sealing seal: @escaping Deadline.Seal = { true }
    ) async throws -> TransportResponse {
        if let errorBodyLimit = consumption.errorBodyLimit, !isSuccess {
            let prefix = try await body.prefix(errorBodyLimit)
            progress?.reportReceived(Int64(prefix.count), of: Int64(prefix.count))
            return collected(prefix)
        }
        let expected = expectedBodySize
        let received: Int64
        let response: TransportResponse
        switch consumption.destination {
        case .file(let file, let limit):
            received = try await body.write(
                to: file,
                upTo: limit,
                expected: expected,
                progress: progress,
                sealing: seal
            )
            response = collected(Data())
        case .memory(let limit):
            let data = try await body.collect(upTo: limit, expected: expected, progress: progress)
            received = Int64(data.count)
            response = collected(data)
        case .stream:
            let data = try await body.collect(upTo: nil, expected: expected, progress: progress)
            received = Int64(data.count)
            response = collected(data)
        }
        if let sent {
            progress?.reportSent(sent, of: sent)
        }
        progress?.reportReceived(received, of: received)
        return response
    }
}

extension ResponseBody {
    /// Reads the whole body into memory.
    ///
    /// - Parameters:
    ///   - limit: The most bytes to keep, or `nil` for no limit. Past it the transfer is
    ///     cancelled at once, as soon as the transport has received that much, whether or not it
    ///     has been read: memory holds at most the limit and one chunk.
    ///   - expected: The size the response announces, to reserve room and report progress.
    ///   - progress: Receives the bytes read so far.
    /// - Returns: The body.
    /// - Throws: The transfer's error, or ``LimitError/bodyTooLarge(limit:)``.
    package func collect(
        upTo limit: Int?,
        expected: Int64? = nil,
        progress: ProgressObserver? = nil
    ) async throws -> Data {
        if let limit {
            buffer.limit(to: limit, failingWith: LimitError.bodyTooLarge(limit: limit))
        }
        var data = Data()
        var isReserved = false
        for try await chunk in self {
            if let limit, data.count + chunk.count > limit {
                cancel()
                throw LimitError.bodyTooLarge(limit: limit)
            }
            if data.isEmpty, !isReserved {
                data = chunk  // the only chunk of most bodies: kept, not copied
                if let expected, expected > chunk.count {
                    data.reserveCapacity(Int(Swift.min(expected, Int64(limit ?? Int.max), 16 << 20)))
                }
                isReserved = true
            } else {
                data.append(chunk)
            }
            progress?.reportReceived(Int64(data.count), of: expected)
        }
        return data
    }

    /// Reads at most `count` bytes of the body and cancels the rest of the transfer, as soon as
    /// the transport has received `count` bytes.
    package func prefix(_ count: Int) async throws -> Data {
        buffer.limit(to: count, failingWith: nil)
        var data = Data()
        for try await chunk in self {
            data.append(chunk.prefix(count - data.count))
            if data.count >= count {
                cancel()
                break
            }
        }
        return data
    }

    /// Writes the body to `file`, replacing any file there only once the whole body has arrived:
    /// it is written beside `file` under a name of its own first, then renamed over it, so that
    /// a failure leaves `file` as it was and nothing else behind. (Under `Deadline.run`, a caller
    /// told of a deadline or a cancellation may return while the partial file is still there:
    /// it goes once this call has seen the cancellation.)
    ///
    /// - Parameters:
    ///   - file: The file to write.
    ///   - limit: The most bytes to write, or `nil` for no limit; past it the transfer is
    ///     cancelled at once, as soon as the transport has received that much.
    ///   - expected: The size the response announces, to report progress.
    ///   - progress: Receives the bytes written so far.
    ///   - seal: Asked just before the file is replaced: `false` leaves it as it was, and the call
    ///     throws `URLError(.cancelled)`.
    /// - Returns: The number of bytes written.
    /// - Throws: The transfer's error, ``LimitError/fileTooLarge(limit:)``, or the file system's
    ///   error.
    package func write(
        to file: URL,
        upTo limit: Int64?,
        expected: Int64?,
        progress: ProgressObserver?,
        sealing seal: Deadline.Seal = { true }
    ) async throws -> Int64 {
        let partial = file.deletingLastPathComponent().appendingPathComponent(Self.partialName(for: file))
        if let limit {
            buffer.limit(to: Int(clamping: limit), failingWith: LimitError.fileTooLarge(limit: limit))
        }
        var written: Int64 = 0
        do {
            try Data().write(to: partial)
            let handle = try FileHandle(forWritingTo: partial)
            do {
                for try await chunk in self {
                    if let limit, written + Int64(chunk.count) > limit {
                        cancel()
                        throw LimitError.fileTooLarge(limit: limit)
                    }
                    try handle.write(contentsOf: chunk)
                    written += Int64(chunk.count)
                    progress?.reportReceived(written, of: expected)
                }
            } catch {
                try? handle.close()  // the error that stopped the writing is the one reported
                throw error
            }
            try handle.close()
            guard seal() else { throw URLError(.cancelled) }  // the caller has heard otherwise
            // rename(2) replaces the file atomically: readers see the old file or the new one.
            guard rename(partial.path, file.path) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: file.path])
            }
        } catch {
            cancel()
            try? FileManager.default.removeItem(at: partial)  // a partial body; the error is reported
            throw error
        }
        return written
    }

    /// The name a body is written under beside `file` until it has all arrived: hidden, unique,
    /// and within the 255 bytes a file name may have, whatever the length of `file`'s.
    private static func partialName(for file: URL) -> String {
        let suffix = ".kilo-\(UUID().uuidString)"
        let room = 255 - 1 - suffix.utf8.count
        var kept = String.UnicodeScalarView()
        var count = 0
        for scalar in file.lastPathComponent.unicodeScalars {
            count += UTF8.width(scalar)
            guard count <= room else { break }
            kept.append(scalar)
        }
        return "." + String(kept) + suffix
    }
}
