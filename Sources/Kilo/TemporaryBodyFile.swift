import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The temporary file that a streamed multipart body is written to, in the system's temporary
/// directory, named `kilo-upload-<process ID>-<UUID>.multipart`.
///
/// The body holds the contents of the files it uploads, which may be private, and the temporary
/// directory is shared by every user of the machine. So the file is created readable and
/// writable by its owner only (mode 0600) in the same system call that creates it
/// (`O_CREAT | O_EXCL`: never a moment with a wider mode, never an existing file or a symbolic
/// link planted under its name), and it is removed when the upload ends, however it ends: by
/// ``write(in:while:_:)`` itself if writing fails or is cancelled, and by the request otherwise.
///
/// A process that dies during an upload leaves its file behind. The next streamed upload of a
/// process removes such copies (see ``removeStaleCopies(in:now:)``): the files of this user,
/// named as Kilo names them, unchanged for a day, whose process no longer runs.
package enum TemporaryBodyFile {
    /// The start of every such file's name.
    package static let namePrefix = "kilo-upload-"
    /// The end of every such file's name.
    package static let nameSuffix = ".multipart"
    /// How long a copy must have been left unchanged before another process may remove it: a
    /// day, far longer than writing one takes, and longer than any upload that might still
    /// read it from a process this one cannot see (in another PID namespace, say).
    package static let staleAge: TimeInterval = 24 * 60 * 60
    /// How often a process looks for stale copies: at its first streamed upload, then at most
    /// once an hour.
    private static let sweepInterval: TimeInterval = 60 * 60
    /// When this process last looked for stale copies, in seconds of system uptime.
    private static let lastSweep = Locked<TimeInterval?>(nil)

    /// Creates a new private file in `directory` and writes a body to it.
    ///
    /// - Parameters:
    ///   - directory: Where to create the file.
    ///   - shouldContinue: Asked before each chunk is written; `false` stops the writing.
    ///   - write: Writes the body, handing each chunk to the output it is given.
    /// - Returns: The file, complete.
    /// - Throws: `CancellationError` when `shouldContinue` said no; the file system's error if
    ///   the file cannot be created or written; what `write` throws. The file is then removed.
    package static func write(
        in directory: URL,
        while shouldContinue: @escaping () -> Bool = { true },
        _ write: (_ output: (Data) throws -> Void) throws -> Void
    ) throws -> URL {
        let name = "\(namePrefix)\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)\(nameSuffix)"
        let file = directory.appendingPathComponent(name, isDirectory: false)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO, userInfo: [NSFilePathErrorKey: file.path])
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try write { chunk in
                guard shouldContinue() else { throw CancellationError() }
                try handle.write(contentsOf: chunk)
            }
            try handle.close()  // A write the system deferred can fail here: the body would be short.
        } catch {
            try? handle.close()  // The file is removed next: whatever closing says, nothing is lost.
            WebServiceProxy.removeTemporaryFile(file)
            throw error
        }
        return file
    }

    /// Removes stale copies from the system's temporary directory, if this process has not
    /// looked for them in the last hour.
    static func removeStaleCopiesIfDue() {
        let now = ProcessInfo.processInfo.systemUptime
        let isDue = lastSweep.withLock { last in
            guard last.map({ now - $0 >= sweepInterval }) ?? true else { return false }
            last = now
            return true
        }
        if isDue {
            removeStaleCopies(in: FileManager.default.temporaryDirectory)
        }
    }

    /// Makes the next ``removeStaleCopiesIfDue()`` look for stale copies, as a process's first
    /// does. For tests.
    package static func forgetLastSweep() {
        lastSweep.withLock { $0 = nil }
    }

    /// Removes the copies in `directory` that processes left behind when they died: each a
    /// regular file (not a symbolic link, which is never followed) owned by this process's user,
    /// named `kilo-upload-<process ID>-<UUID>.multipart`, not modified for ``staleAge``, whose
    /// process no longer runs. Nothing else is touched: another user's files, another program's,
    /// a live process's, a copy still young. A file that cannot be examined is left alone.
    ///
    /// - Parameters:
    ///   - directory: The directory to look in.
    ///   - now: The time to measure the copies' age from.
    package static func removeStaleCopies(in directory: URL, now: Date = Date()) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            return  // Nothing to clean where nothing can be listed.
        }
        for name in names {
            guard let processID = processID(inName: name), !isRunning(processID) else { continue }
            let file = directory.appendingPathComponent(name, isDirectory: false)
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: file.path)  // of a link itself
            } catch {
                continue  // Gone already, or not ours to examine.
            }
            guard attributes[.type] as? FileAttributeType == .typeRegular,
                (attributes[.ownerAccountID] as? NSNumber)?.uint32Value == UInt32(geteuid()),
                let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) >= staleAge
            else { continue }
            WebServiceProxy.removeTemporaryFile(file)
        }
    }

    /// The process ID in a name of the form `kilo-upload-<process ID>-<UUID>.multipart`; `nil`
    /// for any other name.
    static func processID(inName name: String) -> pid_t? {
        guard name.hasPrefix(namePrefix), name.hasSuffix(nameSuffix) else { return nil }
        let middle = name.dropFirst(namePrefix.count).dropLast(nameSuffix.count)
        guard let dash = middle.firstIndex(of: "-"),
            middle[..<dash].allSatisfy({ ("0"..."9").contains($0) }),
            let processID = pid_t(middle[..<dash]), processID > 1,
            UUID(uuidString: String(middle[middle.index(after: dash)...])) != nil
        else {
            return nil
        }
        return processID
    }

    /// Whether a process with this ID runs: `kill` with no signal checks without sending one,
    /// and answers `ESRCH` only when there is no such process (`EPERM` means another user's).
    private static func isRunning(_ processID: pid_t) -> Bool {
        kill(processID, 0) == 0 || errno != ESRCH
    }
}
