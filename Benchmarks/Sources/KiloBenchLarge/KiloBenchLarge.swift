import Foundation

/// kilo-bench-large: 1 GiB multipart uploads and 1 GiB downloads to a file, Kilo next to raw
/// URLSession, and bodies the default limits refuse (a gzip bomb of 1 GiB, a plain body of
/// 2 GiB), each measurement in a fresh child process so that its peak resident memory (VmHWM) is
/// its own. See Docs/Performance.md, "Large bodies (1 GiB)"; run it with
/// `bash Benchmarks/run.sh --large`.
@main
enum KiloBenchLarge {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "measure" {
            await measure(Array(arguments.dropFirst()))
        }
        let options: LargeOptions
        do {
            options = try LargeOptions.parse(arguments)
        } catch let error as UsageError {
            if let message = error.message {
                FileHandle.standardError.write(Data("kilo-bench-large: \(message)\n".utf8))
            }
            FileHandle.standardError.write(Data((LargeOptions.usage + "\n").utf8))
            exit(error.message == nil ? 0 : 2)
        } catch {
            exit(2)
        }
        do {
            let failures = try await Coordinator.run(options)
            if failures > 0 {
                FileHandle.standardError.write(Data("kilo-bench-large: \(failures) measurements failed\n".utf8))
                exit(1)
            }
        } catch {
            FileHandle.standardError.write(Data("kilo-bench-large: \(error)\n".utf8))
            exit(1)
        }
    }

    /// The child side: one measurement, one `RESULT {json}` line on standard output.
    private static func measure(_ arguments: [String]) async -> Never {
        do {
            let options = try ChildOptions.parse(arguments)
            let result = try await Child.run(options)
            let json = try JSONEncoder().encode(result)
            print(ChildResult.prefix + String(decoding: json, as: UTF8.self))
            fflush(nil)  // nil: every stream
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("kilo-bench-large measure \(arguments.first ?? ""): \(error)\n".utf8))
            exit(1)
        }
    }
}

/// The coordinator's options.
struct LargeOptions: Sendable {
    var baseURL: URL
    var rounds = 5
    var sizeMiB = 1024
    var prototypes = false
    var only: [Row]?
    var directory: URL?

    static let usage = """
        usage: kilo-bench-large --port PORT [options]   (bash Benchmarks/run.sh --large starts the server)

          --port PORT       the port of kilo-bench-server on 127.0.0.1
          --url URL         or the server's base URL, ending with /
          --rounds N        interleaved rounds, the order rotated each round (default 5)
          --size-mib N      the size of the test file and of the download, and what the gzip bomb decodes
                            to; the refused plain body is twice as large (default 1024, i.e. 1 GiB)
          --prototypes      add rows that prototype proposed changes (body file by sendfile(2) without
                            fsync; no body file at all, a stream; the body file's write phase alone)
          --only LIST       only these rows, comma-separated (names as printed, e.g. raw-download,kilo-download-own,
                            limit-bomb-nio)
          --dir DIR         the work directory for the test file (default: a new one in the temporary
                            directory, removed at the end; a given one is left, emptied of our files)
        """

    static func parse(_ arguments: [String]) throws -> LargeOptions {
        var baseURL: URL?
        var options = LargeOptions(baseURL: URL(string: "http://127.0.0.1/")!)
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw UsageError("\(flag) needs a value") }
            return value
        }
        func count(_ flag: String) throws -> Int {
            guard let number = Int(try value(flag)), number > 0 else { throw UsageError("\(flag) needs a positive number") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--port": baseURL = URL(string: "http://127.0.0.1:\(try count(argument))/")
            case "--url": baseURL = URL(string: try value(argument))
            case "--rounds": options.rounds = try count(argument)
            case "--size-mib": options.sizeMiB = try count(argument)
            case "--prototypes": options.prototypes = true
            case "--dir": options.directory = URL(fileURLWithPath: try value(argument), isDirectory: true)
            case "--only":
                options.only = try value(argument).split(separator: ",").map { name in
                    guard let row = Row(rawValue: String(name)) else {
                        throw UsageError("unknown row \(name); rows: \(Row.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    return row
                }
            case "-h", "--help": throw UsageError(nil)
            default: throw UsageError("unknown argument \(argument)")
            }
        }
        guard let baseURL else { throw UsageError("--port or --url is required") }
        options.baseURL = baseURL
        return options
    }
}

struct UsageError: Error {
    var message: String?
    init(_ message: String?) { self.message = message }
}
