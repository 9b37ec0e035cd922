import Foundation
import Logging
import MailTransport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// Opens IMAP connections on SwiftNIO. A connection lives for the scope of `withSession`, which
/// closes it whatever happens in the body.
public enum IMAPClient {
    /// A command waits this long with no byte from the server before its connection counts as
    /// stuck, unless the server says otherwise (`MailServer.commandTimeout`).
    public static let defaultCommandTimeout: Duration = .seconds(60)

    public static func withSession<Result: Sendable>(
        to server: MailServer, logger: Logger = Logger(label: "tern.imap"), _ body: (IMAPSession) async throws -> Result
    ) async throws -> Result {
        let connection: MailConnection<IMAPInbound>
        do throws(TransportFailure) {
            let tlsContext = try TLSPolicy.clientContext(for: server)
            connection = try await MailConnection.open(to: server, tlsContext: tlsContext) { IMAPStreamFramer() }
        } catch {
            throw IMAPError(error)
        }
        let channel = connection.channel
        do {
            return try await channel.executeThenClose { inbound, outbound in
                let session = IMAPSession(
                    inbound: inbound.makeAsyncIterator(), outbound: outbound, channel: channel.channel, watch: connection.watch,
                    tlsContext: connection.tlsContext, sniHostname: connection.serverNameIndication, server: server, logger: logger)
                try await session.start()
                return try await body(session)
            }
        } catch let error as IMAPProtocolError {
            throw IMAPError.protocolViolation(error)
        } catch let error where TransportFailure.isTransport(error) {
            throw classify(error, server: server)
        }
        // Anything else is the body's own (a credential that could not be had, a full store), unchanged.
    }

    /// Turns NIO and BoringSSL errors into errors that say what happened.
    static func classify(_ error: any Error, server: MailServer) -> IMAPError {
        if let error = error as? IMAPError { return error }
        if let error = error as? IMAPProtocolError { return .protocolViolation(error) }
        return IMAPError(TransportFailure.classify(error, server: server))
    }
}
