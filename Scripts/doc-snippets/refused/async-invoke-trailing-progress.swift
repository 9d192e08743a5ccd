// In an async function, a trailing closure that can only be a progress handler is refused, with
// the fix in the message: the async invoke takes its progress handler by name only.
import Foundation
import Kilo

func upload(_ proxy: WebServiceProxy, videoURL: URL) async throws {
    let sizes: [Int] = try await proxy.invoke(.post, path: "videos", arguments: ["video": videoURL]) { progress in
        print(progress.fractionSent ?? 0)
    }
    try await proxy.invoke(.post, path: "videos", arguments: ["video": videoURL]) { progress in
        print(progress.fractionSent ?? 0)
    }
    print(sizes)
}
// expected-error: 'invoke(_:path:arguments:content:contentType:_:)' is unavailable: name the progress handler: progress: ProgressHandler { progress in … }
