import AsyncHTTPClient
import Foundation
import Kilo
import KiloAsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

/// A server that closes its keep-alive connections as soon as it has answered, as a server with a
/// short keep-alive timeout (gunicorn's is 2 s) does while the client's pool still holds them.
///
/// The next request may be handed a connection that the client already knows is closed, before
/// anything is written (the client fails it with `ChannelError.ioOnClosedChannel`): the transport
/// sends it again on a new connection. A request written just before the server's close arrives
/// is lost (`URLError.networkConnectionLost`), as it may have reached the server: `RetryingTransport`
/// retries those for idempotent methods.
@Suite(.timeLimit(.minutes(1)))
struct ClosedConnectionTests {
    @Test func aConnectionKnownToBeClosedIsNeverUsed() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(AnswerThenClose())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.recommendedConfiguration
        )
        let transport = AsyncHTTPClientTransport(client: client)
        let port = try #require(server.localAddress?.port)
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/"))
        var lost = 0
        for index in 0..<300 {
            do {
                let response = try await transport.send(
                    TransportRequest(method: .post, url: url, body: .data(Data("\(index)".utf8)))
                )
                #expect(response.body == Data("\(index)".utf8))
            } catch let error as URLError {
                #expect(error.code == .networkConnectionLost)
                let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
                #expect(underlying?.domain.contains("ChannelError") != true, "sent nothing, so it should be re-sent")
                lost += 1
            }
        }
        print("ClosedConnectionTests: \(lost) of 300 requests lost as the server closed their connection")
        #expect(lost < 150)
        try await client.shutdown()
        try await server.close()
        try await group.shutdownGracefully()
    }
}

/// Echoes the request body with a keep-alive response, then closes the connection.
private final class AnswerThenClose: ChannelInboundHandler, @unchecked Sendable {
    // `@unchecked Sendable`: `body` is only touched on the channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var body = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            body.clear()
        case .body(var chunk):
            body.writeBuffer(&chunk)
        case .end:
            let headers: NIOHTTP1.HTTPHeaders = [
                "Content-Length": String(body.readableBytes), "Connection": "keep-alive",
            ]
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                promise: nil
            )
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.close(promise: nil)
        }
    }
}
