import Foundation
import KiloTransport
import Testing

@Suite struct LockedTests {
    /// Threads that change the guarded state at once, and how many changes each makes: enough
    /// that unguarded changes overlap, and are lost, in practically every run.
    private static let threads = 4
    private static let changesPerThread = 100_000

    @Test func concurrentChangesAreNotLost() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: Self.threads) { _ in
            for _ in 0..<Self.changesPerThread {
                counter.withLock { $0 += 1 }
            }
        }
        #expect(counter.withLock { $0 } == Self.threads * Self.changesPerThread)
    }

    @Test func aLockKeepsTheStateItGuardsConsistent() {
        /// Two numbers that must always be equal outside the lock; `@unchecked Sendable`: they
        /// are only touched while `lock` is held.
        final class Pair: @unchecked Sendable {
            let lock = Lock()
            var first = 0
            var second = 0
            var sawThemApart = false
        }
        let pair = Pair()
        DispatchQueue.concurrentPerform(iterations: Self.threads) { _ in
            for _ in 0..<Self.changesPerThread {
                pair.lock.withLock {
                    pair.sawThemApart = pair.sawThemApart || pair.first != pair.second
                    pair.first += 1
                    pair.second += 1
                }
            }
        }
        let total = Self.threads * Self.changesPerThread
        #expect(pair.lock.withLock { !pair.sawThemApart && pair.first == total && pair.second == total })
    }

    @Test func aThrowingBodyKeepsItsChangesAndReleasesTheLock() {
        struct Failure: Error {}
        let value = Locked("before")
        #expect(throws: Failure.self) {
            try value.withLock {
                $0 = "changed"
                throw Failure()
            }
        }
        // Taken again at once: a lock left held would hang here.
        #expect(value.withLock { $0 } == "changed")
        let lock = Lock()
        #expect(throws: Failure.self) {
            try lock.withLock { throw Failure() }
        }
        #expect(lock.withLock { true })
    }
}
