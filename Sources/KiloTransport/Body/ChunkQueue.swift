import Foundation

/// The bytes of a body that wait for its reader, in the order they came: in memory, and past a
/// mark, for a producer that cannot pause, in a ``SpillFile`` on disk, which everything after
/// the first spilled byte then joins until it is read.
///
/// A value with no lock of its own: ``BodyBuffer`` keeps it under its lock.
struct ChunkQueue {
    private var chunks: [Data] = []
    private var first = 0
    private var spill: SpillFile?
    /// The most bytes read back from the disk at once.
    private static let spillReadSize = 256 << 10

    /// The bytes that wait in memory.
    private(set) var bytesInMemory = 0

    /// The bytes that wait, in memory and on disk.
    var count: Int { bytesInMemory + (spill?.count ?? 0) }

    /// Whether nothing waits.
    var isEmpty: Bool { first == chunks.count && spill == nil }

    /// Adds `chunk` at the end, in memory.
    mutating func append(_ chunk: Data) {
        chunks.append(chunk)
        bytesInMemory += chunk.count
    }

    /// Adds `chunk` at the end: in memory, unless something already waits on disk or memory
    /// would then hold more than `mark` bytes.
    ///
    /// - Throws: `URLError(.cannotWriteToFile)` when the disk is full or the file cannot be
    ///   written; nothing is added then.
    mutating func append(_ chunk: Data, spillingPast mark: Int) throws {
        guard spill != nil || bytesInMemory + chunk.count > mark else {
            append(chunk)
            return
        }
        let spill = self.spill ?? SpillFile()
        try spill.append(chunk)
        self.spill = spill
    }

    /// Takes the oldest chunk that waits, or `nil` when none does.
    ///
    /// - Throws: The file system's error for bytes that cannot be read back from the disk.
    mutating func take() throws -> Data? {
        guard first < chunks.count else {
            guard let spill else { return nil }
            let chunk = try spill.read(upTo: Self.spillReadSize)
            if spill.count == 0 {
                self.spill = nil  // its files closed, their space given back
            }
            return chunk
        }
        let chunk = chunks[first]
        chunks[first] = Data()
        first += 1
        if first == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            first = 0
        }
        bytesInMemory -= chunk.count
        return chunk
    }

    /// Drops everything that waits.
    mutating func removeAll() {
        self = ChunkQueue()
    }
}
