import Testing

@testable import KiloTransport

/// The decisions of one `URLSessionTransport` request, without a network: plain objects stand in
/// for its tasks.
@Suite struct TransferStateTests {
    private final class FakeTask {}

    @Test func aTaskIsResumedAndItsResponseThenBodyAreTaken() {
        var state = TransferState<FakeTask>()
        let task = FakeTask()
        let resumes = state.begin(task)
        let cancelled = state.didResume()
        #expect(resumes && cancelled == nil)
        #expect(!state.acceptsBody(of: task), "no body before the response")
        let first = state.receiveResponse(of: task)
        let second = state.receiveResponse(of: task)
        #expect(first && !second, "only the first response counts")
        #expect(state.acceptsBody(of: task))
        let ended = state.complete(task)
        let again = state.complete(task)
        #expect(ended == .receivingBody)
        #expect(again == nil, "a task completes once")
        #expect(state.phase == .finished)
    }

    @Test func cancellationBeforeTheTaskMeansItIsNeverResumed() {
        var state = TransferState<FakeTask>()
        let toCancel = state.cancel()
        let resumes = state.begin(FakeTask())
        #expect(toCancel == nil)
        #expect(!resumes, "cancel it unresumed: nothing is sent")
    }

    /// Cancelling a task while its `resume()` runs crashes Linux's URLSession: the cancellation
    /// waits until `resume()` has returned.
    @Test func cancellationWhileATaskIsResumedWaitsForTheResume() {
        var state = TransferState<FakeTask>()
        let task = FakeTask()
        _ = state.begin(task)
        let duringResume = state.cancel()
        let afterResume = state.didResume()
        let again = state.cancel()
        #expect(duringResume == nil, "not while resume() runs")
        #expect(afterResume === task, "cancelled once resumed")
        #expect(again == nil, "and only once")
    }

    @Test func cancellationAfterTheEndCancelsNothing() {
        var state = TransferState<FakeTask>()
        let task = FakeTask()
        _ = state.begin(task)
        _ = state.didResume()
        _ = state.complete(task)
        let toCancel = state.cancel()
        #expect(toCancel == nil)
    }

    @Test func eventsOfAReplacedTaskAreIgnored() {
        var state = TransferState<FakeTask>()
        let old = FakeTask()
        _ = state.begin(old)
        _ = state.didResume()
        let replacement = state.replace(old, forRedirect: false)
        let new = FakeTask()
        let resumes = state.begin(new)
        let oldResponse = state.receiveResponse(of: old)
        let oldCompletion = state.complete(old)
        let newResponse = state.receiveResponse(of: new)
        #expect(replacement == .proceed && resumes)
        #expect(!oldResponse && oldCompletion == nil)
        #expect(newResponse)
    }

    @Test func resendsAreCounted() {
        var state = TransferState<FakeTask>()
        var replacements: [TransferState<FakeTask>.Replacement] = []
        for _ in 0...TransferState<FakeTask>.maximumResends {
            let task = FakeTask()
            _ = state.begin(task)
            replacements.append(state.replace(task, forRedirect: false))
        }
        #expect(replacements.dropLast().allSatisfy { $0 == .proceed })
        #expect(replacements.last == .fail)
    }

    @Test func noTaskIsReplacedOnceTheResponseArrivedOrTheRequestWasCancelled() {
        var state = TransferState<FakeTask>()
        let task = FakeTask()
        _ = state.begin(task)
        _ = state.didResume()
        _ = state.receiveResponse(of: task)
        let afterResponse = state.replace(task, forRedirect: true)
        #expect(afterResponse == .ignore)

        var cancelled = TransferState<FakeTask>()
        let other = FakeTask()
        _ = cancelled.begin(other)
        _ = cancelled.cancel()
        let afterCancel = cancelled.replace(other, forRedirect: true)
        #expect(afterCancel == .ignore)
    }

    /// A redirect waiting for its answer holds a cancellation back: answering after the task
    /// was cancelled traps on Linux, so the answer's turn cancels it.
    @Test func aCancellationDuringARedirectWaitsForItsAnswer() {
        var state = TransferState<FakeTask>()
        let task = FakeTask()
        _ = state.begin(task)
        _ = state.didResume()
        let question = state.beginRedirect(of: task)
        let held = state.cancel()
        let cancelNow = state.endRedirect()
        let next = state.beginRedirect(of: task)
        let stranger = state.beginRedirect(of: FakeTask())
        #expect(question == .answer)
        #expect(held == nil, "held while the redirect waits")
        #expect(cancelNow, "cancel it now")
        #expect(next == .withhold, "a cancelled task gets no answer")
        #expect(stranger == .answerUntracked)
    }
}
