import Foundation
import Testing

@testable import KiloTransport

/// What waits for a body's reader: in memory up to a mark, then on disk, always in order.
@Suite struct ChunkQueueTests {
    /// `count` bytes that all hold `value`.
    private static func chunk(_ value: UInt8, count: Int = 100) -> Data {
        Data(repeating: value, count: count)
    }

    /// Takes everything that waits.
    private static func drain(_ queue: inout ChunkQueue) throws -> Data {
        var data = Data()
        while let chunk = try queue.take() {
            data.append(chunk)
        }
        return data
    }

    @Test func chunksComeOutInOrder() throws {
        var queue = ChunkQueue()
        #expect(queue.isEmpty)
        for value in 0..<5 {
            queue.append(Self.chunk(UInt8(value)))
        }
        #expect(queue.count == 500)
        #expect(queue.bytesInMemory == 500)
        #expect(try Self.drain(&queue) == Data((0..<5).flatMap { Array(repeating: UInt8($0), count: 100) }))
        #expect(queue.isEmpty)
        #expect(queue.count == 0)
    }

    /// Past the mark, chunks wait on disk, and so does every chunk after them, even one that
    /// would fit in memory again: order is kept.
    @Test func pastTheMarkChunksWaitOnDiskInOrder() throws {
        var queue = ChunkQueue()
        try queue.append(Self.chunk(1), spillingPast: 250)
        try queue.append(Self.chunk(2), spillingPast: 250)
        try queue.append(Self.chunk(3), spillingPast: 250)  // would pass the mark: on disk
        #expect(queue.bytesInMemory == 200)
        #expect(queue.count == 300)
        #expect(try queue.take() == Self.chunk(1))
        try queue.append(Self.chunk(4), spillingPast: 250)  // memory has room, but the disk is first
        #expect(queue.bytesInMemory == 100)
        #expect(queue.count == 300)
        var rest = Self.chunk(2)
        rest.append(Self.chunk(3))
        rest.append(Self.chunk(4))
        #expect(try Self.drain(&queue) == rest)
        #expect(queue.isEmpty)
        try queue.append(Self.chunk(5), spillingPast: 250)  // the disk emptied: memory again
        #expect(queue.bytesInMemory == 100)
    }

    @Test func removeAllDropsMemoryAndDisk() throws {
        var queue = ChunkQueue()
        try queue.append(Self.chunk(1, count: 300), spillingPast: 100)
        queue.append(Self.chunk(2))
        queue.removeAll()
        #expect(queue.isEmpty)
        #expect(queue.count == 0)
        #expect(try queue.take() == nil)
    }
}
