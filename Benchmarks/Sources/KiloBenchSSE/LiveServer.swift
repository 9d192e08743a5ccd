import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A loopback server, in this process on an event loop of its own, that answers
/// `GET /events?bytes=N` with about N bytes of server-sent events (whole 64 KiB blocks of
/// OpenAI-style chat chunks, one `data:` line each), written as fast as the client reads them:
/// the writes wait while the socket is full, so a slow client slows it down and its memory stays
/// bounded.
final class LiveServer: Sendable {
    /// The block the server writes again and again: whole events, about 64 KiB.
    static let block: (bytes: ByteBuffer, events: Int) = {
        var text = ""
        var events = 0
        while text.utf8.count < 64 * 1024 {
            text += "data: " + SyntheticStream.chunkJSON(events).joined() + "\n\n"
            events += 1
        }
        return (ByteBuffer(string: text), events)
    }()

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The server's base URL, ending in `/`.
    let baseURL: URL

    /// Starts the server on a free port of 127.0.0.1.
    init() throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(EventsHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        baseURL = URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)/")!
    }

    /// The number of whole blocks, and of events, that `GET /events?bytes=N` sends.
    static func stream(bytes: Int) -> (blocks: Int, events: Int, bytes: Int) {
        let blocks = max(1, bytes / block.bytes.readableBytes)
        return (blocks, blocks * block.events, blocks * block.bytes.readableBytes)
    }

    /// Stops the server.
    func shutdown() throws {
        try channel.close().wait()
        try group.syncShutdownGracefully()
    }
}

/// Answers one connection's requests with blocks of events, as the socket drains.
private final class EventsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var blocks = 0
    private var remaining = 0
    private var isStreaming = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let query = head.uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
            let bytes = query.split(separator: "&").first { $0.hasPrefix("bytes=") }.flatMap { Int($0.dropFirst(6)) }
            blocks = LiveServer.stream(bytes: bytes ?? 0).blocks
        case .body:
            break
        case .end:
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/event-stream")
            headers.add(name: "Content-Length", value: String(blocks * LiveServer.block.bytes.readableBytes))
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            remaining = blocks
            isStreaming = true
            pump(context: context)
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

    /// Writes blocks while the channel is writable; `channelWritabilityChanged` resumes it.
    private func pump(context: ChannelHandlerContext) {
        while remaining > 0, context.channel.isWritable {
            context.write(wrapOutboundOut(.body(.byteBuffer(LiveServer.block.bytes))), promise: nil)
            remaining -= 1
        }
        if remaining == 0 {
            isStreaming = false
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            context.flush()
        }
    }
}
