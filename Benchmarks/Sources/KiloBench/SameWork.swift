/// For each Kilo row over URLSession, the raw row that does the same work by hand: the same
/// request and decoding, with the result delivered the same way (returned to an awaiting task,
/// or handed to a queue of the caller's). The target compares Kilo with raw URLSession
/// "doing the same work"; the verdict judges each Kilo row against the baseline (raw completion
/// handlers that decode and start the next request on the session's delegate queue, with no hop)
/// and against this row.
enum SameWork {
    static let getAsync = "raw async: continuation around dataTask, URLRequest built per request"
    static let getSerialCallback = "raw dataTask + JSONDecoder, result on a private serial queue"
    static let getConcurrentCallback = "raw dataTask + JSONDecoder, result on a concurrent queue"
    static let formAsync = "raw async: continuation around dataTask, FormEncoder body"
    static let formCallback = "raw dataTask, FormEncoder body, result on a private serial queue"
    static let multipartAsync = "raw async: continuation around dataTask, MultipartEncoder body"
    static let multipartCallback = "raw dataTask, MultipartEncoder body, result on a private serial queue"

    /// The raw row for each Kilo row, by name.
    static let rawRow: [String: String] = [
        "Kilo async invoke": getAsync,
        "Kilo own-session (init(configuration:)) async invoke": getAsync,
        "Kilo callback invoke, private serial callbackQueue": getSerialCallback,
        "Kilo own-session (init(configuration:)) callback invoke, private serial callbackQueue": getSerialCallback,
        "Kilo callback invoke, concurrent callbackQueue": getConcurrentCallback,
        "Kilo async invoke, form": formAsync,
        "Kilo own-session (init(configuration:)) async invoke, form": formAsync,
        "Kilo callback invoke, form, private serial callbackQueue": formCallback,
        "Kilo own-session (init(configuration:)) callback invoke, form, private serial callbackQueue": formCallback,
        "Kilo async invoke, multipart": multipartAsync,
        "Kilo own-session (init(configuration:)) async invoke, multipart": multipartAsync,
        "Kilo callback invoke, multipart, private serial callbackQueue": multipartCallback,
        "Kilo own-session (init(configuration:)) callback invoke, multipart, private serial callbackQueue":
            multipartCallback,
    ]
}
