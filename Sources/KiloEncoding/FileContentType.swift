import Foundation

/// The media type of a file part, chosen from the file's extension.
enum FileContentType {
    private static let types: [String: String] = [
        "bin": "application/octet-stream", "csv": "text/csv", "css": "text/css", "gif": "image/gif",
        "gz": "application/gzip", "heic": "image/heic", "htm": "text/html", "html": "text/html",
        "jpeg": "image/jpeg", "jpg": "image/jpeg", "js": "text/javascript", "json": "application/json",
        "m4a": "audio/mp4", "md": "text/markdown", "mov": "video/quicktime", "mp3": "audio/mpeg",
        "mp4": "video/mp4", "pdf": "application/pdf", "png": "image/png", "svg": "image/svg+xml",
        "tar": "application/x-tar", "tif": "image/tiff", "tiff": "image/tiff", "txt": "text/plain",
        "wav": "audio/wav", "webm": "video/webm", "webp": "image/webp", "xml": "application/xml",
        "zip": "application/zip",
    ]

    /// The media type for `url`'s extension, or `application/octet-stream` when it is unknown.
    static func of(_ url: URL) -> String {
        types[url.pathExtension.lowercased()] ?? "application/octet-stream"
    }
}
