import BenchmarkSupport
import Foundation

/// The outcome of one trial: its wall time and each request's latency.
struct Trial: Sendable {
    var elapsed: UInt64 = 0
    /// CPU time of the whole client process (all threads) during the trial.
    var cpu: UInt64 = 0
    /// Context switches of the whole client process during the trial.
    var switches = 0
    var latencies: [UInt64] = []
    var failures = 0
    var firstError: String?

    var requestsPerSecond: Double {
        Double(latencies.count) / (Double(elapsed) / 1e9)
    }

    var cpuPerRequest: Double {
        Double(cpu) / Double(max(latencies.count, 1))
    }

    var switchesPerRequest: Double {
        Double(switches) / Double(max(latencies.count, 1))
    }

    mutating func absorb(_ other: Trial) {
        latencies += other.latencies
        failures += other.failures
        firstError = firstError ?? other.firstError
    }
}

/// A way of sending one kind of request, measured as a row of a table.
///
/// `run(lanes, perLane)` keeps `lanes` requests in flight, each lane sending `perLane`
/// requests one after another, and returns when all are done.
struct RequestRow: Sendable {
    var name: String
    var run: @Sendable (_ lanes: Int, _ perLane: Int) async -> Trial

    /// A row driven by completion handlers: each lane starts its next request from the previous
    /// one's completion handler, with no Swift concurrency involved (how callback code runs).
    static func callbacks(
        _ name: String,
        issue: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Void, any Error>) -> Void) -> Void
    ) -> RequestRow {
        RequestRow(name: name) { lanes, perLane in
            let group = DispatchGroup()
            let chains = (0..<lanes).map { _ in Chain(requests: perLane, group: group, issue: issue) }
            let usage = processUsage()
            let start = now()
            for chain in chains {
                group.enter()
                chain.next()
            }
            await withCheckedContinuation { continuation in
                group.notify(queue: .global()) { continuation.resume() }
            }
            let elapsed = now() - start
            let usageAfter = processUsage()
            var trial = Trial(elapsed: elapsed, cpu: usageAfter.cpu - usage.cpu, switches: usageAfter.switches - usage.switches)
            for chain in chains {
                trial.absorb(chain.trial)
            }
            return trial
        }
    }

    /// A row driven by tasks: each lane is a child task that awaits its requests in turn.
    static func tasks(_ name: String, operation: @escaping @Sendable () async throws -> Void) -> RequestRow {
        RequestRow(name: name) { lanes, perLane in
            let usage = processUsage()
            let start = now()
            var trial = await withTaskGroup(of: Trial.self) { group in
                for _ in 0..<lanes {
                    group.addTask {
                        var lane = Trial()
                        lane.latencies.reserveCapacity(perLane)
                        for _ in 0..<perLane {
                            let started = now()
                            do {
                                try await operation()
                            } catch {
                                lane.failures += 1
                                lane.firstError = lane.firstError ?? String(describing: error)
                            }
                            lane.latencies.append(now() - started)
                        }
                        return lane
                    }
                }
                var total = Trial()
                for await lane in group {
                    total.absorb(lane)
                }
                return total
            }
            trial.elapsed = now() - start
            let usageAfter = processUsage()
            trial.cpu = usageAfter.cpu - usage.cpu
            trial.switches = usageAfter.switches - usage.switches
            return trial
        }
    }
}

/// One lane of a callback-driven row.
///
/// `@unchecked Sendable`: a lane has one request in flight at a time, and each completion
/// handler runs after the previous request's (URLSession or the callback queue hands it over),
/// so no two threads ever touch its state at once.
private final class Chain: @unchecked Sendable {
    private(set) var trial = Trial()
    private var remaining: Int
    private var started: UInt64 = 0
    private let group: DispatchGroup
    private let issue: @Sendable (_ completion: @escaping @Sendable (Result<Void, any Error>) -> Void) -> Void

    init(
        requests: Int,
        group: DispatchGroup,
        issue: @escaping @Sendable (_ completion: @escaping @Sendable (Result<Void, any Error>) -> Void) -> Void
    ) {
        self.remaining = requests
        self.group = group
        self.issue = issue
        trial.latencies.reserveCapacity(requests)
    }

    func next() {
        started = now()
        issue { result in self.complete(result) }
    }

    private func complete(_ result: Result<Void, any Error>) {
        trial.latencies.append(now() - started)
        if case .failure(let error) = result {
            trial.failures += 1
            trial.firstError = trial.firstError ?? String(describing: error)
        }
        remaining -= 1
        if remaining > 0 {
            next()
        } else {
            group.leave()
        }
    }
}

/// The results of one row in one mode (number of requests in flight).
struct RowResult: Sendable {
    var name: String
    var lanes: Int
    var requestsPerSecond: [Double] = []
    /// Per round: this row's requests per second over the baseline's in the same round.
    var ratios: [Double] = []
    var latencies: [UInt64] = []
    var cpuPerRequest: [Double] = []
    /// Per round: this row's CPU time per request over the baseline's in the same round.
    var cpuRatios: [Double] = []
    var switchesPerRequest: [Double] = []
    var failures = 0
    var firstError: String?

    var medianCPU: Double { Statistics.median(cpuPerRequest) }
    var medianSwitches: Double { Statistics.median(switchesPerRequest) }
    var medianCPURatio: Double { Statistics.median(cpuRatios) }
    var medianRate: Double { Statistics.median(requestsPerSecond) }
    var medianRatio: Double { Statistics.median(ratios) }

    func latency(_ fraction: Double) -> Double {
        Statistics.percentile(latencies.map { Double($0) }, fraction)
    }
}

/// Measures rows side by side: for each mode, every row runs once per round, in an order that
/// rotates each round (A B C, B C A, C A B, …), so drift and noise fall on all rows alike.
/// The first row is the baseline.
func compare(_ rows: [RequestRow], modes: [(lanes: Int, perLane: Int)], rounds: Int) async -> [RowResult] {
    var results: [RowResult] = []
    for mode in modes {
        // Warm-up: open the connections this mode needs, and let lazy setup happen unmeasured.
        for row in rows {
            _ = await row.run(mode.lanes, max(2, mode.perLane / 4))
        }
        var modeResults = rows.map { RowResult(name: $0.name, lanes: mode.lanes) }
        for round in 0..<rounds {
            var rates = [Double](repeating: .nan, count: rows.count)
            var cpus = [Double](repeating: .nan, count: rows.count)
            for offset in rows.indices {
                let index = (round + offset) % rows.count
                let trial = await rows[index].run(mode.lanes, mode.perLane)
                rates[index] = trial.requestsPerSecond
                cpus[index] = trial.cpuPerRequest
                modeResults[index].cpuPerRequest.append(trial.cpuPerRequest)
                modeResults[index].switchesPerRequest.append(trial.switchesPerRequest)
                modeResults[index].requestsPerSecond.append(trial.requestsPerSecond)
                modeResults[index].latencies += trial.latencies
                modeResults[index].failures += trial.failures
                modeResults[index].firstError = modeResults[index].firstError ?? trial.firstError
            }
            for index in rows.indices {
                modeResults[index].ratios.append(rates[index] / rates[0])
                modeResults[index].cpuRatios.append(cpus[index] / cpus[0])
            }
        }
        results += modeResults
    }
    return results
}

/// Prints request results as a table.
func printRequestTable(_ results: [RowResult]) {
    var table = Table(
        "row", "in flight", "req/s median", "ratio", "latency median", "latency p99", "CPU/req", "CPU ratio", "switches/req", "errors")
    var lastLanes: Int?
    for result in results {
        if let lastLanes, lastLanes != result.lanes {
            table.add("", "", "", "", "", "", "", "", "", "")
        }
        lastLanes = result.lanes
        table.add(
            result.name, String(result.lanes), Format.rate(result.medianRate), Format.ratio(result.medianRatio),
            Format.duration(result.latency(0.5)), Format.duration(result.latency(0.99)),
            Format.duration(result.medianCPU), Format.ratio(result.medianCPURatio),
            String(format: "%.1f", result.medianSwitches), String(result.failures))
    }
    table.print()
    for result in results where result.failures > 0 {
        print("errors in \"\(result.name)\" (\(result.lanes) in flight): \(result.failures), first: \(result.firstError ?? "?")")
    }
}

/// Prints each row's heap allocations per request, by every thread of the process, over
/// `requests` requests one at a time after the timed rounds (counting is off while they run, so
/// it costs them nothing). The server is another process: its allocations are not counted.
func printAllocations(_ rows: [RequestRow], requests: Int) async {
    guard canCountAllocations else { return }
    print("   heap allocations per request (all threads of this process, \(requests) requests, 1 in flight):")
    var table = Table("row", "allocations/req")
    for row in rows {
        _ = await row.run(1, 20)
        Memory.countLiveBlocks(true)
        let before = Memory.processAllocations()
        _ = await row.run(1, requests)
        let after = Memory.processAllocations()
        Memory.countLiveBlocks(false)
        table.add(row.name, String(format: "%.1f", Double(after - before) / Double(requests)))
    }
    table.print()
}
