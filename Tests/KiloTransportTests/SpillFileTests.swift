import Foundation
import Testing

@testable import KiloTransport

/// The files where a body waits for a slow reader: read back in order, their space given back as
/// the reader catches up, and a full disk a typed error.
@Suite struct SpillFileTests {
    /// Bytes `0, 1, 2, …` from `start`, `count` of them.
    private static func bytes(from start: Int, count: Int) -> Data {
        Data((start..<start + count).map { UInt8(truncatingIfNeeded: $0) })
    }

    @Test func bytesComeBackInOrderAcrossFiles() throws {
        let spill = SpillFile(segmentSize: 1000, makingFilesWith: Self.temporaryFile)
        for start in stride(from: 0, to: 10_000, by: 700) {
            try spill.append(Self.bytes(from: start, count: 700))
        }
        #expect(spill.count == 10_500)
        var read = Data()
        while let chunk = try spill.read(upTo: 333) {
            read.append(chunk)
        }
        #expect(read == Self.bytes(from: 0, count: 10_500))
        #expect(spill.count == 0)
    }

    /// The disk holds what waits unread and at most a file more, not all that passed through.
    @Test func theDiskHoldsWhatWaitsNotWhatPassed() throws {
        let segment = 1 << 20
        let spill = SpillFile(segmentSize: UInt64(segment), makingFilesWith: Self.temporaryFile)
        let chunk = Data(repeating: 7, count: 256 << 10)
        for _ in 0..<64 {  // 16 MiB
            try spill.append(chunk)
        }
        #expect(spill.bytesOnDisk >= 16 << 20)
        var read = 0
        while read < 12 << 20, let data = try spill.read(upTo: 256 << 10) {
            read += data.count
        }
        #expect(spill.count == 4 << 20)
        #expect(spill.bytesOnDisk <= (4 << 20) + segment, "\(spill.bytesOnDisk) bytes on disk for 4 MiB unread")
        while let data = try spill.read(upTo: 1 << 20) {
            read += data.count
        }
        #expect(read == 16 << 20)
        #expect(spill.bytesOnDisk == 0)
    }

    /// A full disk (here `/dev/full`, whose every write fails with `ENOSPC`) is
    /// `URLError(.cannotWriteToFile)`, with the file system's error beneath it.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aFullDiskIsCannotWriteToFile() throws {
        let spill = SpillFile(segmentSize: 1 << 20) {
            try FileHandle(forUpdating: URL(fileURLWithPath: "/dev/full"))
        }
        let error = #expect(throws: URLError.self) {
            try spill.append(Data(count: 64 << 10))
        }
        #expect(error?.code == .cannotWriteToFile)
        #expect(error?.errorUserInfo[NSUnderlyingErrorKey] != nil)
        #expect(spill.count == 0)
    }

    /// A new unlinked file in the temporary directory.
    private static func temporaryFile() throws -> FileHandle {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kilo-spill-test-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { unlink(url.path) }
        return try FileHandle(forUpdating: url)
    }
}
