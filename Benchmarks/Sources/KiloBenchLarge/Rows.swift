import Foundation

/// The measurements. Each runs in a child process of its own (`kilo-bench-large measure ROW …`),
/// so that its peak resident memory is its own.
enum Row: String, CaseIterable, Sendable {
    case rawUploadFile = "raw-upload-file"
    case rawUploadMultipart = "raw-upload-multipart"
    case rawUploadDelegate = "raw-upload-delegate"
    case rawUploadTaskDelegate = "raw-upload-task-delegate"
    case kiloUploadSession = "kilo-upload-session"
    case kiloUploadOwn = "kilo-upload-own"
    case rawDownload = "raw-download"
    case kiloDownloadSession = "kilo-download-session"
    case kiloDownloadOwn = "kilo-download-own"
    case kiloDownloadNIO = "kilo-download-nio"
    // Limits (issue 21): a body the default limits refuse, sent to a default proxy.
    case limitBombSession = "limit-bomb-session"
    case limitBombOwn = "limit-bomb-own"
    case limitBombNIO = "limit-bomb-nio"
    case limitPlainSession = "limit-plain-session"
    case limitPlainOwn = "limit-plain-own"
    case limitPlainNIO = "limit-plain-nio"
    case rawLimitBombNIO = "raw-limit-bomb-nio"
    // Prototypes of changes to Kilo, built here from Kilo's public API (--prototypes).
    case protoUploadSendfile = "proto-upload-sendfile"
    case protoUploadStream = "proto-upload-stream"
    case protoUploadMultipartStream = "proto-upload-multipart-stream"
    case encodeKilo = "encode-kilo"
    case encodeSendfile = "encode-sendfile"

    enum Group: String, Sendable {
        case upload, download, write, limit
    }

    var group: Group {
        switch self {
        case .rawUploadFile, .rawUploadMultipart, .rawUploadDelegate, .rawUploadTaskDelegate, .kiloUploadSession, .kiloUploadOwn, .protoUploadSendfile,
            .protoUploadStream, .protoUploadMultipartStream:
            return .upload
        case .rawDownload, .kiloDownloadSession, .kiloDownloadOwn, .kiloDownloadNIO:
            return .download
        case .limitBombSession, .limitBombOwn, .limitBombNIO, .limitPlainSession, .limitPlainOwn, .limitPlainNIO,
            .rawLimitBombNIO:
            return .limit
        case .encodeKilo, .encodeSendfile:
            return .write
        }
    }

    var label: String {
        switch self {
        case .rawUploadFile: return "raw uploadTask(fromFile:), the file's bytes as they are"
        case .rawUploadMultipart: return "raw uploadTask(fromFile:), pre-built multipart body (baseline)"
        case .rawUploadDelegate: return "raw uploadTask(fromFile:), multipart body, session delegate (progress)"
        case .rawUploadTaskDelegate: return "raw uploadTask(fromFile:), multipart body, completion handler + task delegate"
        case .kiloUploadSession: return "Kilo invoke, multipart, init(session:)"
        case .kiloUploadOwn: return "Kilo invoke, multipart, init(configuration:)"
        case .rawDownload: return "raw downloadTask + move to destination (baseline)"
        case .kiloDownloadSession: return "Kilo download(to:), init(session:)"
        case .kiloDownloadOwn: return "Kilo download(to:), init(configuration:)"
        case .kiloDownloadNIO: return "Kilo download(to:), AsyncHTTPClientTransport"
        case .limitBombSession: return "gzip bomb that decodes to the size, default limits, init(session:)"
        case .limitBombOwn: return "gzip bomb that decodes to the size, default limits, init(configuration:)"
        case .limitBombNIO: return "gzip bomb that decodes to the size, default limits, AsyncHTTPClientTransport"
        case .limitPlainSession: return "plain body of twice the size, default limits, init(session:)"
        case .limitPlainOwn: return "plain body of twice the size, default limits, init(configuration:)"
        case .limitPlainNIO: return "plain body of twice the size, default limits, AsyncHTTPClientTransport"
        case .rawLimitBombNIO: return "gzip bomb, async-http-client alone, its body read and dropped up to the limit"
        case .protoUploadSendfile: return "prototype: body file by sendfile(2), no fsync, + URLSessionTransport"
        case .protoUploadStream: return "prototype: no body file, httpBodyStream of the pre-built body (chunked)"
        case .protoUploadMultipartStream: return "prototype: no body file, multipart InputStream made on the fly (chunked)"
        case .encodeKilo: return "MultipartEncoder.encode(_:toFile:) alone (Kilo's write phase)"
        case .encodeSendfile: return "prototype: part headers + sendfile(2) for the file, no fsync"
        }
    }

    var isBaseline: Bool { self == .rawUploadMultipart || self == .rawDownload }
    var isKilo: Bool { rawValue.hasPrefix("kilo-") }
    var isRaw: Bool { rawValue.hasPrefix("raw-") }
    var isLimit: Bool { group == .limit }
    var isPrototype: Bool { rawValue.hasPrefix("proto-") || rawValue.hasPrefix("encode-") }

    static let standard: [Row] = allCases.filter { !$0.isPrototype }
}
