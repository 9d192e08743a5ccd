// In an async function, a trailing closure that can only be a progress handler is refused, with
// the fix in the message: the async download takes its progress handler by name only.
import Foundation
import Kilo

func fetch(_ proxy: WebServiceProxy, to destination: URL) async throws {
    let headers = try await proxy.download(path: "videos/42", to: destination) { progress in
        print(progress.fractionReceived ?? 0)
    }
    print(headers)
}
// expected-error: 'download(_:path:arguments:to:_:)' is unavailable: name the progress handler: progress: ProgressHandler { progress in … }
