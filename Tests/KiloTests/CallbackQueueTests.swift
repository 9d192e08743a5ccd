import Foundation
import Testing

// The one facade test that needs `@testable`: `CallbackQueue` is internal, and what it works out
// (whether the queue is the main queue) shows nowhere in the public API.
@testable import Kilo

@Suite struct CallbackQueueTests {
    @Test func theMainQueueIsToldApart() {
        #expect(CallbackQueue(DispatchQueue.main).isMain)
        #expect(!CallbackQueue(DispatchQueue(label: "org.kilo.tests.callbacks")).isMain)
        #expect(!CallbackQueue(DispatchQueue.global()).isMain)
    }

    @Test func aProxyKnowsWhetherItsCallbackQueueIsTheMainQueue() {
        let proxy = WebServiceProxy(baseURL: baseURL, transport: FakeTransport())
        #expect(proxy.currentCallbacks.isMain)
        let queue = DispatchQueue(label: "org.kilo.tests.callbacks")
        proxy.callbackQueue = queue
        #expect(proxy.callbackQueue === queue)
        #expect(!proxy.currentCallbacks.isMain)
        proxy.callbackQueue = .main
        #expect(proxy.currentCallbacks.isMain)
    }
}
