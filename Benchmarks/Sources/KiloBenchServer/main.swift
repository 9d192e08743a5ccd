// kilo-bench-server: the loopback HTTP/1.1 server that kilo-bench measures against.
//
//     kilo-bench-server PORT     (0 picks a free port; the port is printed as the first line)
//
// Routes (keep-alive, pipelining handled by NIO's HTTPServerPipelineHandler):
//   GET  /json       a ~200-byte JSON object
//   POST /discard    reads and drops a body of any size, answers {"received": N}
//   GET  /bytes?n=N  N bytes, written in 64 KiB slices as the socket drains
// One event loop thread: the machine has two cores and the client needs the other one.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers one connection's requests; memory stays bounded whatever the body sizes.
final class BenchHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Route {
        case json, discard, bytes(Int), notFound
    }

    /// The object `GET /json` returns (201 bytes).
    static let jsonBody: ByteBuffer = ByteBuffer(
        string: #"{"id":1,"name":"Kilo benchmark item","tags":["swift","rest","client"],"#
            + #""created":1700000000123,"price":12.5,"active":true,"#
            + #""description":"A small JSON object, about the size of a typical REST resource."}"#)

    /// What `GET /bytes` sends, slice by slice.
    static let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)

    private var route = Route.notFound
    private var keepAlive = true
    private var received = 0
    private var remaining = 0
    private var isStreaming = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            received = 0
            route = Self.route(for: head)
        case .body(let buffer):
            received += buffer.readableBytes  // dropped at once: nothing is kept
        case .end:
            respond(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if isStreaming, context.channel.isWritable {
            pump(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isStreaming = false
        context.fireChannelInactive()
    }

    private static func route(for head: HTTPRequestHead) -> Route {
        let parts = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        switch (head.method, parts[0]) {
        case (.GET, "/json"):
            return .json
        case (.POST, "/discard"):
            return .discard
        case (.GET, "/bytes"):
            let query = parts.count > 1 ? parts[1] : ""
            for pair in query.split(separator: "&") where pair.hasPrefix("n=") {
                if let count = Int(pair.dropFirst(2)), count >= 0 {
                    return .bytes(count)
                }
            }
            return .notFound
        default:
            return .notFound
        }
    }

    private func respond(context: ChannelHandlerContext) {
        switch route {
        case .json:
            send(context: context, status: .ok, body: Self.jsonBody)
        case .discard:
            send(context: context, status: .ok, body: ByteBuffer(string: #"{"received":\#(received)}"#))
        case .bytes(let count):
            writeHead(context: context, status: .ok, contentType: "application/octet-stream", length: count)
            remaining = count
            isStreaming = true
            pump(context: context)
        case .notFound:
            send(context: context, status: .notFound, body: ByteBuffer(string: #"{"error":"not found"}"#))
        }
    }

    private func send(context: ChannelHandlerContext, status: HTTPResponseStatus, body: ByteBuffer) {
        writeHead(context: context, status: status, contentType: "application/json", length: body.readableBytes)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        finish(context: context)
    }

    private func writeHead(context: ChannelHandlerContext, status: HTTPResponseStatus, contentType: String, length: Int) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(length))
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
    }

    /// Writes slices while the channel is writable; `channelWritabilityChanged` resumes it.
    private func pump(context: ChannelHandlerContext) {
        while remaining > 0, context.channel.isWritable {
            let size = min(remaining, Self.chunk.readableBytes)
            context.write(wrapOutboundOut(.body(.byteBuffer(Self.chunk.getSlice(at: 0, length: size)!))), promise: nil)
            remaining -= size
        }
        if remaining == 0 {
            isStreaming = false
            finish(context: context)
        } else {
            context.flush()
        }
    }

    private func finish(context: ChannelHandlerContext) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let port = Int(arguments.first ?? "0"), (0...65535).contains(port) else {
    FileHandle.standardError.write(Data("usage: kilo-bench-server [PORT]   (0 picks a free port)\n".utf8))
    exit(2)
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 512)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelOption(.maxMessagesPerRead, value: 16)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(BenchHandler())
        }
    }

let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
guard let boundPort = channel.localAddress?.port else {
    FileHandle.standardError.write(Data("kilo-bench-server: no local port\n".utf8))
    exit(1)
}
print(boundPort)
fflush(nil)  // nil: every stream (naming `stdout` is not concurrency-safe)
try channel.closeFuture.wait()
