/// The names of sections b and c's rows, and for each Kilo row the raw row that does the same
/// work by hand, which the verdict judges it against (target ≥ 0.95×):
///
/// - Kilo async, against raw async code as one writes it on Linux: a checked continuation around
///   `dataTask(with:completionHandler:)`, its `URLRequest` built per request, then the status
///   checked and the body decoded;
/// - Kilo callbacks, against a raw completion handler that checks and decodes on the session's
///   delegate queue, then hands the result to the main queue, where Kilo's callbacks arrive by
///   default (`callbackQueue`);
/// - Kilo over `AsyncHTTPClientTransport`, async, against async-http-client used directly
///   (`execute`, `collect`, `JSONDecoder`) on the same client; callbacks, against that code run
///   in a `Task` whose result hops to the main queue (the ratio to the async code is printed too).
///
/// The ratio to `URLSession.data(for:)` is printed too, for information: on Linux it completes
/// inline on the session's work queue, a path no public API gives any other task, and it can
/// deadlock when cancelled (corelibs #5412).
enum SameWork {
    static let kiloAsync = "Kilo async, your session (init(session:))"
    static let kiloCallback = "Kilo callbacks, your session (init(session:))"
    static let ownAsync = "Kilo async, own session (init(configuration:))"
    static let ownCallback = "Kilo callbacks, own session (init(configuration:))"
    static let ahc = "async-http-client execute + JSONDecoder"
    static let ahcCallback = "async-http-client execute + JSONDecoder in a Task, result hopped to the main queue"
    static let nioAsync = "Kilo async over AsyncHTTPClientTransport"
    static let nioCallback = "Kilo callbacks over AsyncHTTPClientTransport"

    /// Raw async code for `work` ("" for the GET, "form", "multipart").
    static func rawAsync(_ work: String = "") -> String {
        named("raw async: continuation around dataTask", work)
    }

    /// `URLSession.data(for:)` for `work`.
    static func rawDataFor(_ work: String = "") -> String {
        named("raw data(for:)", work)
    }

    /// A raw completion handler whose result hops to the main queue, for `work`.
    static func rawCallback(_ work: String = "") -> String {
        named("raw dataTask, result hopped to the main queue", work)
    }

    static let getAsync = rawAsync()
    static let getDataFor = rawDataFor()
    static let getCallback = rawCallback()

    /// What a Kilo row is judged against: the raw row doing the same work, and a row shown for
    /// information (`data(for:)`, or async-http-client's async code); `nil` for a row that is
    /// not Kilo's.
    static func references(of row: String) -> (raw: String, information: String?)? {
        switch row {
        case nioAsync: return (ahc, nil)
        case nioCallback: return (ahcCallback, ahc)
        default: break
        }
        for work in ["", "form", "multipart"] {
            switch row {
            case named(kiloAsync, work), named(ownAsync, work):
                return (rawAsync(work), rawDataFor(work))
            case named(kiloCallback, work), named(ownCallback, work):
                return (rawCallback(work), rawDataFor(work))
            default:
                continue
            }
        }
        return nil
    }

    private static func named(_ name: String, _ work: String) -> String {
        work.isEmpty ? name : "\(name), \(work)"
    }
}
