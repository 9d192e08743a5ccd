import Foundation

/// A plain-text table: first column left-aligned, the others right-aligned.
public struct Table {
    public var header: [String]
    public var rows: [[String]] = []

    public init(_ header: String...) {
        self.header = header
    }

    public mutating func add(_ row: String...) {
        add(row)
    }

    public mutating func add(_ row: [String]) {
        rows.append(row)
    }

    /// Prints the table to standard output, then flushes it.
    public func print() {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        Swift.print(line(header))
        Swift.print(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)))
        for row in rows {
            Swift.print(line(row))
        }
        Swift.print()
        fflush(nil)  // nil: every stream (naming `stdout` is not concurrency-safe)
    }
}
