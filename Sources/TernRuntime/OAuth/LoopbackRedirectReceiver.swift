import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// RFC 8252 section 7.3: an HTTP listener on 127.0.0.1 (never a public interface) at a port the
/// system picks, receiving the authorization response from the browser.
///
/// Only the answer carrying this sign-in's `state` (RFC 6749 section 10.12) ends the wait. Any
/// local process, or a page the browser has open, can send a request to the port first; such a
/// request gets 400 and the listener keeps waiting for the real one until the timeout, so a stray
/// or forged request can neither end the sign-in nor hand Tern another authorization code.
final class LoopbackRedirectReceiver: Sendable {
    let channel: any Channel
    let port: Int
    private let result: EventLoopPromise<[String: String]>

    static let path = "/oauth/callback"

    private init(channel: any Channel, result: EventLoopPromise<[String: String]>) {
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
        self.result = result
    }

    var redirectURI: String { "http://127.0.0.1:\(port)\(Self.path)" }

    /// `state`: the value the authorization request carried; only an answer with it is taken.
    static func start(state: String) async throws -> LoopbackRedirectReceiver {
        let group = MultiThreadedEventLoopGroup.singleton
        let result = group.next().makePromise(of: [String: String].self)
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { child in
                child.pipeline.configureHTTPServerPipeline().flatMap {
                    child.pipeline.addHandler(CallbackHandler(result: result, state: state))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LoopbackRedirectReceiver(channel: channel, result: result)
    }

    /// The query parameters of the first request to the callback path with the expected `state`.
    func parameters(timeout: Duration) async throws -> [String: String] {
        let scheduled = channel.eventLoop.scheduleTask(in: timeout.nioTimeAmount) {
            self.result.fail(OAuthFlowError.timedOut)
        }
        defer {
            scheduled.cancel()
            channel.close(promise: nil)
        }
        return try await result.futureResult.get()
    }

    private final class CallbackHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let result: EventLoopPromise<[String: String]>
        let state: String

        init(result: EventLoopPromise<[String: String]>, state: String) {
            self.result = result
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .head(let head) = unwrapInboundIn(data) else { return }
            let components = URLComponents(string: head.uri)
            guard components?.path == LoopbackRedirectReceiver.path else {
                respond(context: context, status: .notFound, body: "Not found.")
                return
            }
            var parameters: [String: String] = [:]
            for item in components?.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
            guard parameters["state"] == state else {
                respond(context: context, status: .badRequest, body: "This answer is not for the sign-in Tern is waiting for.")
                return
            }
            let body =
                parameters["error"] == nil
                ? "Tern is signed in. You can close this window."
                : "Sign-in was not completed. You can close this window and try again."
            respond(context: context, status: .ok, body: body)
            result.succeed(parameters)
        }

        private func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
            let html = "<!doctype html><meta charset=utf-8><title>Tern</title><p>\(body)</p>"
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Length", value: String(html.utf8.count))
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Content-Security-Policy", value: "default-src 'none'")
            headers.add(name: "Referrer-Policy", value: "no-referrer")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: html)))), promise: nil)
            // The completion runs on the context's event loop; NIOLoopBound carries the context there.
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}

enum OAuthFlowError: Error, CustomStringConvertible {
    case timedOut

    var description: String { "no answer from the browser in time" }
}

extension Duration {
    var nioTimeAmount: TimeAmount {
        .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}
