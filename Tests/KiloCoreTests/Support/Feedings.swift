import Foundation

/// The ways the streaming parser tests feed a stream: whole; split in two at every byte
/// boundary (so inside every UTF-8 character and between every CR and LF); and one byte at a
/// time.
enum Feedings {
    /// Every feeding of `bytes`, each as its chunks, with a name for failure messages.
    static func all(_ bytes: [UInt8]) -> [(name: String, chunks: [Data])] {
        var feedings: [(name: String, chunks: [Data])] = [("whole", [Data(bytes)])]
        for split in bytes.indices.dropFirst() {
            feedings.append(("split at \(split)", [Data(bytes[..<split]), Data(bytes[split...])]))
        }
        feedings.append(("byte at a time", bytes.map { Data([$0]) }))
        return feedings
    }

    /// Every feeding of `text`'s UTF-8 bytes.
    static func all(_ text: String) -> [(name: String, chunks: [Data])] {
        all(Array(text.utf8))
    }
}

/// What a parser delivered from a stream, and the error that stopped it, if any.
struct Delivery<Element> {
    var elements: [Element] = []
    var error: (any Error)?

    /// Feeds `chunks` to `append`, then calls `finish`, collecting what they deliver until one
    /// throws.
    init(
        _ chunks: [Data],
        append: (Data, (Element) throws -> Void) throws -> Void,
        finish: ((Element) throws -> Void) throws -> Void = { _ in }
    ) {
        var elements: [Element] = []
        do {
            for chunk in chunks {
                try append(chunk) { elements.append($0) }
            }
            try finish { elements.append($0) }
        } catch {
            self.error = error
        }
        self.elements = elements
    }
}
