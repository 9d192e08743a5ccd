#if !KILO_ASYNC_HTTP_CLIENT
    import Foundation
    import Kilo
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// A URL session's configuration goes on working through a proxy: what httpbin's `/headers`
    /// received from proxies on both kinds of session.
    @Suite(.enabled(if: Servers.httpbin != nil, "needs KILO_HTTPBIN_URL (run Scripts/test.sh)"))
    struct SessionConfigurationTests {
        /// How a test's proxy is made.
        enum ProxyKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
            case yourSession = "on your session"
            case ownSession = "with a session of its own"
            case retryingOwnSession = "with a session of its own, retrying"

            var testDescription: String { rawValue }
        }

        /// A configuration whose `httpAdditionalHeaders` asks for a media type of its own.
        private static let configuration: URLSessionConfiguration = {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["accept": "application/vnd.kilo+json", "X-Client": "kilo-tests"]
            return configuration
        }()

        /// Sessions and transports made once, as they should be.
        private static let session = URLSession(configuration: configuration)
        private static let owningTransport = URLSessionTransport(configuration: configuration)

        private static func proxy(_ kind: ProxyKind) throws -> WebServiceProxy {
            let baseURL = try #require(Servers.httpbin)
            return switch kind {
            case .yourSession: WebServiceProxy(session: session, baseURL: baseURL)
            case .ownSession: WebServiceProxy(baseURL: baseURL, transport: owningTransport)
            case .retryingOwnSession: WebServiceProxy(baseURL: baseURL, transport: owningTransport.retrying(.default))
            }
        }

        private struct Headers: Decodable {
            var headers: [String: String]
        }

        /// The configuration's `Accept` goes out with a request that decodes JSON, as with every
        /// other request. Before the fix, Kilo's own `Accept: application/json` replaced it.
        @Test(arguments: ProxyKind.allCases)
        func theConfigurationsAcceptGoesWithJSONRequests(kind: ProxyKind) async throws {
            let proxy = try Self.proxy(kind)
            let decoded: Headers = try await proxy.invoke(.get, path: "headers")
            #expect(decoded.headers["Accept"] == "application/vnd.kilo+json")
            #expect(decoded.headers["X-Client"] == "kilo-tests")
            proxy.callbackQueue = CallbackQueues.make("session-configuration")
            let outcome: CallbackOutcome<Headers> = try await callback {
                proxy.invoke(.get, path: "headers", resultHandler: $0)
            }
            #expect(try outcome.get().headers["Accept"] == "application/vnd.kilo+json")
        }

        /// The proxy's own headers still replace the configuration's.
        @Test(arguments: ProxyKind.allCases)
        func theProxysHeadersReplaceTheConfigurations(kind: ProxyKind) async throws {
            let proxy = try Self.proxy(kind)
            proxy.headers = ["Accept": "application/json", "x-client": "proxy"]
            let decoded: Headers = try await proxy.invoke(.get, path: "headers")
            #expect(decoded.headers["Accept"] == "application/json")
            #expect(decoded.headers["X-Client"] == "proxy")
        }

        /// Without an `Accept` in the configuration, a request that decodes JSON asks for JSON.
        @Test func aRequestThatDecodesJSONAsksForItOtherwise() async throws {
            let proxy = WebServiceProxy(session: Servers.session, baseURL: try #require(Servers.httpbin))
            let decoded: Headers = try await proxy.invoke(.get, path: "headers")
            #expect(decoded.headers["Accept"] == "application/json")
        }
    }
#endif
