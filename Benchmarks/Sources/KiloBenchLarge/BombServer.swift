import Foundation

/// A loopback HTTP server in the coordinator that answers `GET /bomb?mib=N` with a gzip body that
/// decodes to N MiB of zeros (``GzipZeros``), sent whole as soon as the request arrives, as a
/// hostile server would, with `Connection: close`. Anything else gets a 404.
///
/// Kept out of kilo-bench-server, which has no gzip, and out of the children, whose peak resident
/// memory is the figure: a thread per connection, blocking sockets, at most a few at a time.
final class BombServer: @unchecked Sendable {
    // `@unchecked Sendable`: `bodies` is only touched under `lock`; the rest is set in `init`.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var bodies: [Int: Data] = [:]

    /// Starts listening on a free port of 127.0.0.1.
    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchError("bomb server: socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw BenchError("bomb server: bind: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptForever() }
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    private func acceptForever() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        guard let head = readHead(connection) else { return }
        let line = head.prefix { $0 != "\r" }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET", parts[1].hasPrefix("/bomb?mib="),
            let mebibytes = Int(parts[1].dropFirst("/bomb?mib=".count)), mebibytes > 0
        else {
            write(connection, Data("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let body = self.body(mebibytes: mebibytes)
        let responseHead = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard write(connection, Data(responseHead.utf8)) else { return }
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + 65_536)
            guard write(connection, body[offset..<end]) else { return }  // the client closed it
            offset = end
        }
        shutdown(connection, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        while recv(connection, &scratch, scratch.count, 0) > 0 {}  // until the client closes
    }

    /// The gzip of `mebibytes` MiB of zeros, made once for each size.
    private func body(mebibytes: Int) -> Data {
        lock.withLock {
            if let body = bodies[mebibytes] {
                return body
            }
            let body = GzipZeros.make(count: mebibytes << 20)
            bodies[mebibytes] = body
            return body
        }
    }

    /// The request's head, up to its blank line, or `nil` when the client goes first.
    private func readHead(_ connection: Int32) -> String? {
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: head, as: UTF8.self).contains("\r\n\r\n"), head.count < 65_536 {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            head += buffer[..<count]
        }
        return String(decoding: head, as: UTF8.self)
    }

    /// Writes all of `data`; `false` once the client has closed the connection.
    @discardableResult
    private func write(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }
}
