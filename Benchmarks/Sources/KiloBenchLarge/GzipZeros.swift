import Foundation

/// A gzip stream of zeros made by hand, a "compressed bomb" that decodes to about a thousand times
/// its size (RFC 1951/1952), without zlib, which Swift on Linux does not expose.
///
/// One deflate block with dynamic Huffman codes in which the length 258 (symbol 285) and the
/// distance 1 each have a 1-bit code of 0: after one literal zero, every copy of 258 zeros costs
/// two zero bits, so the body is a short head, a run of zero bytes (4 copies, 1,032 bytes of output,
/// each), and a short tail: 1 GiB of zeros is 1,040,480 bytes (gzip -9 makes 1,042,069).
enum GzipZeros {
    /// The gzip of `count` zeros (at least 1).
    static func make(count: Int) -> Data {
        precondition(count >= 1)
        let copies = (count - 1) / 258
        let literals = (count - 1) % 258
        var head = BitWriter()
        head.writeHeader()
        head.writeCode(0b10, length: 2)  // the first zero, a literal
        // Every copy is two zero bits: a run of zero bytes, once the head's last byte is filled.
        let zeroBits = 2 * copies
        let fill = min(zeroBits, head.bitsToByteBoundary)
        head.writeZeroBits(fill)
        let runBytes = head.bitsToByteBoundary == 0 ? (zeroBits - fill) / 8 : 0
        var tail = BitWriter()
        tail.writeZeroBits(zeroBits - fill - 8 * runBytes)
        for _ in 0..<literals {
            tail.writeCode(0b10, length: 2)
        }
        tail.writeCode(0b11, length: 2)  // end of block
        var data = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 255])  // gzip, deflate, no name, -9, unknown OS
        if head.bitsToByteBoundary == 0 {
            data.append(contentsOf: head.bytes)
            data.append(Data(count: runBytes))
            data.append(contentsOf: tail.finished())
        } else {
            head.append(tail)
            data.append(contentsOf: head.finished())
        }
        for value in [crc32OfZeros(count: count), UInt32(truncatingIfNeeded: count)] {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// CRC-32 (IEEE) of `count` zero bytes, without the bytes: the register after a zero bit is a
    /// linear function of the one before (a 32×32 matrix over GF(2), as in zlib's crc32_combine),
    /// raised to the power of `8 × count` by squaring.
    static func crc32OfZeros(count: Int) -> UInt32 {
        func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var result: UInt32 = 0
            var vector = vector
            var row = 0
            while vector != 0 {
                if vector & 1 != 0 {
                    result ^= matrix[row]
                }
                vector >>= 1
                row += 1
            }
            return result
        }
        var register: UInt32 = 0xFFFF_FFFF
        var matrix: [UInt32] = [0xEDB8_8320] + (0..<31).map { UInt32(1) << $0 }  // one zero bit
        var power = 8 * count
        while power > 0 {
            if power & 1 != 0 {
                register = times(matrix, register)
            }
            matrix = matrix.map { times(matrix, $0) }
            power >>= 1
        }
        return register ^ 0xFFFF_FFFF
    }

    /// Deflate's bit order: fields least significant bit first, Huffman codes most significant
    /// bit first.
    private struct BitWriter {
        private(set) var bytes: [UInt8] = []
        private var current: UInt8 = 0
        private var used = 0

        var bitsToByteBoundary: Int { used == 0 ? 0 : 8 - used }

        mutating func writeBit(_ bit: Int) {
            current |= UInt8(bit & 1) << used
            used += 1
            if used == 8 {
                bytes.append(current)
                (current, used) = (0, 0)
            }
        }

        mutating func writeField(_ value: Int, bits: Int) {
            for index in 0..<bits {
                writeBit(value >> index)
            }
        }

        mutating func writeCode(_ code: Int, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) {
                writeBit(code >> index)
            }
        }

        mutating func writeZeroBits(_ count: Int) {
            for _ in 0..<count {
                writeBit(0)
            }
        }

        mutating func append(_ other: BitWriter) {
            for byte in other.bytes {
                writeField(Int(byte), bits: 8)
            }
            writeField(Int(other.current), bits: other.used)
        }

        /// The bytes, the last one padded with zero bits.
        func finished() -> [UInt8] {
            used == 0 ? bytes : bytes + [current]
        }

        /// The block header, and the code lengths: literal 0 and end of block 2 bits, length 258
        /// 1 bit, distance 1 1 bit; sent with a code-length code in which 18 (a run of zeros) has
        /// 1 bit and the lengths 1 and 2 have 2 bits each.
        mutating func writeHeader() {
            writeField(1, bits: 1)  // the last block
            writeField(2, bits: 2)  // dynamic Huffman codes
            writeField(286 - 257, bits: 5)  // literal/length codes: up to 285
            writeField(1 - 1, bits: 5)  // one distance code
            // Code-length code lengths, in deflate's order, up to the last one used (for 1).
            let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1]
            let lengths = [18: 1, 1: 2, 2: 2]
            writeField(order.count - 4, bits: 4)
            for symbol in order {
                writeField(lengths[symbol] ?? 0, bits: 3)
            }
            // Canonical codes: 18 → 0; 1 → 10; 2 → 11.
            func zeros(_ count: Int) {
                writeCode(0, length: 1)
                writeField(count - 11, bits: 7)
            }
            writeCode(0b11, length: 2)  // literal 0: 2 bits
            zeros(138)
            zeros(117)  // literals 1 to 255
            writeCode(0b11, length: 2)  // 256, the end of block: 2 bits
            zeros(28)  // 257 to 284
            writeCode(0b10, length: 2)  // 285, length 258: 1 bit
            writeCode(0b10, length: 2)  // distance code 0, distance 1: 1 bit
        }
    }
}
