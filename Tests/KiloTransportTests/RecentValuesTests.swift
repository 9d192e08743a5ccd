import Foundation
import KiloTransport
import Testing

@Suite struct RecentValuesTests {
    @Test func aRememberedValueIsFoundByItsKey() {
        let values = RecentValues<Int>(limit: 4)
        values.remember(1, for: "one")
        values.remember(2, for: "two")
        #expect(values["one"] == 1)
        #expect(values["two"] == 2)
        #expect(values["three"] == nil)
    }

    @Test func rememberingAgainReplacesTheValue() {
        let values = RecentValues<Int>(limit: 4)
        values.remember(1, for: "key")
        values.remember(2, for: "key")
        #expect(values["key"] == 2)
    }

    @Test func aFullStoreForgetsEverythingBeforeItRemembersMore() {
        let values = RecentValues<Int>(limit: 3)
        for (index, key) in ["a", "b", "c"].enumerated() {
            values.remember(index, for: key)
        }
        #expect(values["c"] == 2)
        values.remember(3, for: "d")
        #expect(values["a"] == nil)
        #expect(values["c"] == nil)
        #expect(values["d"] == 3)
    }

    @Test func threadsThatLookUpAndRememberAtOnceSeeOnlyTheirOwnValues() {
        let values = RecentValues<String>(limit: 64)
        let found = Locked((right: 0, wrong: 0))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<10_000 {
                let key = "\(thread)-\(round % 10)"  // 40 keys in all: fewer than the limit
                if let value = values[key] {
                    found.withLock { value == key.uppercased() ? ($0.right += 1) : ($0.wrong += 1) }
                } else {
                    values.remember(key.uppercased(), for: key)
                }
            }
        }
        // Counted, and checked here: an expectation on a worker thread may not be tied to the test.
        let counts = found.withLock { $0 }
        #expect(counts.wrong == 0)
        #expect(counts.right > 0)
    }
}
