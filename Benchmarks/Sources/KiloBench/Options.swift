import Foundation

/// Command-line options and the run sizes they select.
struct Options: Sendable {
    /// The sections of the benchmark, in the order they run.
    enum Section: String, CaseIterable, Sendable {
        case encoding = "a", get = "b", post = "c", memory = "d"
    }

    var baseURL: URL
    var isQuick = false
    var sections = Set(Section.allCases)
    /// Interleaved rounds per request measurement (each round runs every row once).
    var rounds = 15
    /// Batches per encoding row, and operations per batch.
    var encodingBatches = 150
    var encodingBatchSize = 1000
    /// Requests per trial: sequential, and per lane when several are in flight.
    var sequentialRequests = 500
    var requestsPerLane = [16: 80, 64: 30]
    var multipartRequests = 100
    /// Requests in the memory check, after its warm-up.
    var memoryRequests = 10_000
    var memoryWarmup = 500
    /// Only rows whose name contains this text (for focused profiling runs).
    var rowFilter: String?
    /// Which numbers of requests in flight section b measures.
    var inFlight = [1, 16, 64]
    /// Adds rows that prototype suggested changes to Kilo, outside Kilo (see Benchmarks/NOTES.md).
    var experiments = false

    static let usage = """
        usage: kilo-bench --port PORT [options]     (bash Benchmarks/run.sh starts the server for you)

          --port PORT          the port of kilo-bench-server on 127.0.0.1
          --url URL            or the server's base URL, ending with /
          --quick              a smoke run of a few seconds
          --sections LIST      which sections to run, e.g. a,b (a encoding, b GET, c POST, d memory)
          --rounds N           interleaved rounds per request measurement (default 15; quick 2)
          --memory-requests N  requests in the memory check (default 10000)
          --only TEXT          only rows whose name contains TEXT (or one of A|B|…), e.g. "Kilo async" (for profiling);
                               "=NAME" matches the whole name only
          --in-flight LIST     numbers of requests in flight, from 1,16,64 (default all three; section c1 has 1 and 16)
          --experiments        add rows (sections a and b) that explain costs and prototype changes (Benchmarks/NOTES.md)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var baseURL: URL?
        var quick = false
        var sections: Set<Section>?
        var rounds: Int?
        var memoryRequests: Int?
        var only: String?
        var experiments = false
        var inFlight: [Int]?
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let value = iterator.next() else { throw UsageError("\(flag) needs a value") }
            return value
        }
        func count(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else { throw UsageError("\(flag) needs a positive number") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--port":
                let port = try count(argument)
                baseURL = URL(string: "http://127.0.0.1:\(port)/")
            case "--url":
                baseURL = URL(string: try value(argument))
            case "--quick":
                quick = true
            case "--sections":
                let names = try value(argument).split(separator: ",").map(String.init)
                sections = Set(try names.map { name in
                    guard let section = Section(rawValue: name) else { throw UsageError("unknown section \(name)") }
                    return section
                })
            case "--rounds":
                rounds = try count(argument)
            case "--memory-requests":
                memoryRequests = try count(argument)
            case "--only":
                only = try value(argument)
            case "--experiments":
                experiments = true
            case "--in-flight":
                inFlight = try value(argument).split(separator: ",").map { text in
                    guard let lanes = Int(text), [1, 16, 64].contains(lanes) else {
                        throw UsageError("--in-flight takes 1, 16 and 64")
                    }
                    return lanes
                }
            case "-h", "--help":
                throw UsageError(nil)
            default:
                throw UsageError("unknown argument \(argument)")
            }
        }
        guard let baseURL else { throw UsageError("--port or --url is required") }
        var options = Options(baseURL: baseURL)
        if quick {
            options.isQuick = true
            options.rounds = 2
            options.encodingBatches = 20
            options.encodingBatchSize = 200
            options.sequentialRequests = 100
            options.requestsPerLane = [16: 10, 64: 4]
            options.multipartRequests = 10
            options.memoryRequests = 1_000
            options.memoryWarmup = 100
        }
        if let sections { options.sections = sections }
        if let rounds { options.rounds = rounds }
        if let memoryRequests { options.memoryRequests = memoryRequests }
        options.rowFilter = only
        options.experiments = experiments
        if let inFlight { options.inFlight = inFlight }
        return options
    }

    func includes(_ row: String) -> Bool {
        guard let rowFilter else { return true }
        return rowFilter.split(separator: "|").contains { text in
            text.hasPrefix("=") ? row == text.dropFirst() : row.contains(text)
        }
    }
}

struct UsageError: Error {
    var message: String?

    init(_ message: String?) {
        self.message = message
    }
}
