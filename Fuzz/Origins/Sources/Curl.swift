import Foundation

/// How libcurl reads a URL: the parser that URLSession on Linux hands a request's
/// `absoluteString` to (`CURLOPT_URL`), reached through libcurl's URL API with the flags its
/// easy handle parses with, so that the harness sees the scheme, user, password, host and port
/// that the request goes out with.
enum Curl {
    /// A URL's parts as libcurl reads them.
    struct Parts: Equatable, CustomStringConvertible {
        var scheme: String
        var user: String?
        var password: String?
        var host: String
        var port: String

        /// Scheme, host and port, compared as an origin.
        var origin: String {
            "\(scheme.lowercased())://\(host.lowercased()):\(port)"
        }

        var description: String {
            "\(scheme)://\(user ?? "(no user)"):\(password ?? "(no password)")@\(host):\(port)"
        }
    }

    private typealias URLHandle = OpaquePointer
    private typealias Make = @convention(c) () -> URLHandle?
    private typealias Set = @convention(c) (URLHandle?, CInt, UnsafePointer<CChar>?, CUnsignedInt) -> CInt
    private typealias Get =
        @convention(c) (
            URLHandle?, CInt, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, CUnsignedInt
        ) -> CInt
    private typealias Cleanup = @convention(c) (URLHandle?) -> Void
    private typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private struct Functions: @unchecked Sendable {
        // `@unchecked Sendable`: C function pointers, set once.
        let make: Make
        let set: Set
        let get: Get
        let cleanup: Cleanup
        let free: Free
    }

    private static let functions: Functions = {
        guard let library = dlopen("libcurl.so.4", RTLD_NOW) else {
            fatalError("Kilo origin fuzz: libcurl.so.4 (which FoundationNetworking uses) cannot be loaded")
        }
        func load<T>(_ name: String, as type: T.Type) -> T {
            guard let symbol = dlsym(library, name) else { fatalError("Kilo origin fuzz: no \(name) in libcurl") }
            return unsafeBitCast(symbol, to: type)
        }
        return Functions(
            make: load("curl_url", as: Make.self),
            set: load("curl_url_set", as: Set.self),
            get: load("curl_url_get", as: Get.self),
            cleanup: load("curl_url_cleanup", as: Cleanup.self),
            free: load("curl_free", as: Free.self)
        )
    }()

    // From curl/urlapi.h.
    private static let partURL: CInt = 0
    private static let partScheme: CInt = 1
    private static let partUser: CInt = 2
    private static let partPassword: CInt = 3
    private static let partHost: CInt = 5
    private static let partPort: CInt = 6
    private static let defaultPort: CUnsignedInt = 1 << 0
    private static let nonSupportScheme: CUnsignedInt = 1 << 3
    private static let guessScheme: CUnsignedInt = 1 << 9

    /// The parts libcurl reads in `url`, or `nil` when it refuses it (the request then fails,
    /// and nothing is sent).
    static func parts(of url: String) -> Parts? {
        let functions = functions
        guard let handle = functions.make() else { fatalError("Kilo origin fuzz: curl_url() failed") }
        defer { functions.cleanup(handle) }
        // `CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME`, as an easy handle parses CURLOPT_URL.
        guard functions.set(handle, partURL, url, guessScheme | nonSupportScheme) == 0 else { return nil }
        func part(_ what: CInt, _ flags: CUnsignedInt = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard functions.get(handle, what, &value, flags) == 0, let value else { return nil }
            defer { functions.free(value) }
            return String(cString: value)
        }
        guard let scheme = part(partScheme), let host = part(partHost), let port = part(partPort, defaultPort) else {
            return nil
        }
        return Parts(scheme: scheme, user: part(partUser), password: part(partPassword), host: host, port: port)
    }
}
