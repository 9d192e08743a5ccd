#if !KILO_ASYNC_HTTP_CLIENT
    import Foundation
    import Kilo
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A URL session invalidated while a request is on its way: the request fails, and the
    /// process goes on. Each test makes a session of its own, which it invalidates.
    @Suite(.enabled(if: Servers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test.sh)"))
    struct SessionInvalidationTests {
        /// A multipart body with large files is written to a file before its task is made, which
        /// takes its time; a session invalidated meanwhile (here, already before the request
        /// starts, which is the same to Kilo and does not depend on timing) would trap on the
        /// task: the request fails with `cancelled` instead, and nothing is sent.
        @Test(arguments: ["session", "owned"])
        func aStreamedMultipartUploadFailsWhenTheSessionIsInvalidatedBeforeItsTaskIsMade(mode: String)
            async throws
        {
            let baseURL = try #require(Servers.httpbin)
            let directory = try TemporaryDirectory()
            let file = try directory.write(
                Data(count: Int(WebServiceProxy.multipartMemoryLimit) + 1),
                named: "large.bin"
            )
            let proxy =
                mode == "session"
                ? WebServiceProxy(session: URLSession(configuration: .ephemeral), baseURL: baseURL)
                : WebServiceProxy(configuration: .ephemeral, baseURL: baseURL)
            proxy.encoding = .multipartFormData
            let transport = try #require(proxy.transport as? URLSessionTransport)
            transport.session.invalidateAndCancel()
            let error = await #expect(throws: URLError.self) {
                try await proxy.invoke(.post, path: "post", arguments: ["file": file])
            }
            #expect(error?.code == .cancelled)
        }
    }
#endif
