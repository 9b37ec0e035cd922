import Foundation
import NIOCore
import NIOSSL
import TernCore

/// One authenticated-or-not IMAP connection, used by one task at a time (commands are sequential;
/// untagged responses that arrive between commands are kept for the mailbox handler).
public final class IMAPSession {
    public struct CommandResult: Sendable {
        public var untagged: [UntaggedResponse]
        public var state: ResponseState
    }

    public struct SelectedMailbox: Sendable, Hashable {
        public var name: String
        public var exists: UInt32
        public var uidValidity: UInt32?
        public var uidNext: UInt32?
        public var highestModSeq: UInt64?
        public var readOnly: Bool
    }

    var inbound: NIOAsyncChannelInboundStream<IMAPResponse>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let channel: any Channel
    let tlsContext: NIOSSLContext
    let sniHostname: String?
    let server: IMAPServer
    var tagNumber = 0
    public private(set) var capabilities: Set<String> = []
    public private(set) var greeting: ResponseState?
    /// Untagged responses that belonged to no command (EXISTS, EXPUNGE, FETCH while idle or between commands).
    public private(set) var unsolicited: [UntaggedResponse] = []

    init(inbound: NIOAsyncChannelInboundStream<IMAPResponse>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
         channel: any Channel, tlsContext: NIOSSLContext, sniHostname: String?, server: IMAPServer) {
        self.inbound = inbound
        self.outbound = outbound
        self.channel = channel
        self.tlsContext = tlsContext
        self.sniHostname = sniHostname
        self.server = server
    }

    /// Greeting, then STARTTLS when asked for, then the capabilities.
    func start() async throws {
        guard case .untagged(.state(let greeting)) = try await nextResponse() else {
            throw IMAPError.protocolViolation(.malformed(reason: "no greeting", bytes: []))
        }
        guard greeting.status == .ok || greeting.status == .preauth else {
            throw IMAPError.server(status: greeting.status, text: greeting.text)
        }
        self.greeting = greeting
        if case .capability(let list)? = greeting.code { capabilities = Set(list.map { $0.uppercased() }) }
        if server.security == .startTLS {
            if capabilities.isEmpty { try await refreshCapabilities() }
            guard capabilities.contains("STARTTLS") else {
                throw IMAPError.tlsRefused("\(server.host):\(server.port) does not offer STARTTLS; Tern never logs in without TLS")
            }
            _ = try await execute("STARTTLS")
            let context = tlsContext
            let hostname = sniHostname
            try await channel.eventLoop.submit { [channel] in
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: hostname), position: .first)
            }.get()
            capabilities = []  // RFC 9051 section 6.2.1: capabilities before STARTTLS are discarded
        }
        if capabilities.isEmpty { try await refreshCapabilities() }
    }

    // MARK: - Commands

    @discardableResult
    public func execute(_ command: String) async throws -> CommandResult {
        tagNumber += 1
        let tag = "t\(tagNumber)"
        try await send(Array("\(tag) \(command)\r\n".utf8))
        return try await collect(tag: tag, command: command)
    }

    func send(_ bytes: [UInt8]) async throws {
        do {
            try await outbound.write(ByteBuffer(bytes: bytes))
        } catch {
            throw IMAPClient.classify(error, server: server)
        }
    }

    func collect(tag: String, command: String) async throws -> CommandResult {
        var untagged: [UntaggedResponse] = []
        while true {
            switch try await nextResponse() {
            case .tagged(let responseTag, let state) where responseTag == tag:
                if case .capability(let list)? = state.code { capabilities = Set(list.map { $0.uppercased() }) }
                guard state.status == .ok else {
                    let verb = command.split(separator: " ").first.map(String.init) ?? command
                    if ["LOGIN", "AUTHENTICATE"].contains(verb.uppercased()) {
                        throw IMAPError.authenticationFailed(state.text)
                    }
                    throw IMAPError.server(status: state.status, text: state.text)
                }
                return CommandResult(untagged: untagged, state: state)
            case .tagged(let other, _):
                throw IMAPError.protocolViolation(.malformed(reason: "response for unknown tag \(other)", bytes: []))
            case .untagged(.state(let state)) where state.status == .bye && !command.hasPrefix("LOGOUT"):
                throw IMAPError.server(status: .bye, text: state.text)
            case .untagged(let response):
                untagged.append(response)
            case .continuation:
                throw IMAPError.protocolViolation(.malformed(reason: "unexpected continuation", bytes: []))
            }
        }
    }

    func nextResponse() async throws -> IMAPResponse {
        do {
            guard let response = try await inbound.next() else { throw IMAPError.connectionClosed }
            return response
        } catch let error as IMAPError {
            throw error
        } catch {
            throw IMAPClient.classify(error, server: server)
        }
    }

    public func refreshCapabilities() async throws {
        let result = try await execute("CAPABILITY")
        for case .capability(let list) in result.untagged { capabilities = Set(list.map { $0.uppercased() }) }
    }

    /// LOGIN, or AUTHENTICATE PLAIN with SASL-IR when the server disables LOGIN.
    public func login(username: String, password: String) async throws {
        let result: CommandResult
        if capabilities.contains("AUTH=PLAIN") && (capabilities.contains("LOGINDISABLED") || capabilities.contains("SASL-IR")) {
            let token = Data(("\u{0}" + username + "\u{0}" + password).utf8).base64EncodedString()
            result = try await execute("AUTHENTICATE PLAIN \(token)")
        } else {
            result = try await execute("LOGIN \(try Self.astring(username)) \(try Self.astring(password))")
        }
        // Capabilities change after login; `collect` took them from the OK's [CAPABILITY …] when sent.
        if case .capability? = result.state.code {} else { try await refreshCapabilities() }
    }

    /// FR-SYNC-01 step 1: every mailbox with its attributes (RFC 6154 special use when offered).
    public func listMailboxes() async throws -> [MailboxListing] {
        let command = capabilities.contains("SPECIAL-USE") ? "LIST \"\" \"*\" RETURN (SPECIAL-USE)" : "LIST \"\" \"*\""
        let result = try await execute(command)
        return result.untagged.compactMap { if case .list(let listing) = $0 { listing } else { nil } }
    }

    public func select(_ mailbox: String, readOnly: Bool = false) async throws -> SelectedMailbox {
        let condstore = capabilities.contains("CONDSTORE") ? " (CONDSTORE)" : ""
        let result = try await execute("\(readOnly ? "EXAMINE" : "SELECT") \(try Self.mailboxArgument(mailbox))\(condstore)")
        var selected = SelectedMailbox(name: mailbox, exists: 0, readOnly: result.state.code == .readOnly)
        for response in result.untagged {
            switch response {
            case .exists(let count): selected.exists = count
            case .state(let state):
                switch state.code {
                case .uidValidity(let value)?: selected.uidValidity = value
                case .uidNext(let value)?: selected.uidNext = value
                case .highestModSeq(let value)?: selected.highestModSeq = value
                default: break
                }
            default: break
            }
        }
        return selected
    }

    public func logout() async throws {
        _ = try? await execute("LOGOUT")
    }

    // MARK: - Arguments

    /// A mailbox name in modified UTF-7, quoted.
    static func mailboxArgument(_ name: String) throws -> String {
        try astring(MailboxName.encode(name))
    }

    /// A quoted string; a value that cannot be quoted (CR, LF, NUL, 8-bit) is refused rather than
    /// sent in a way that could end the command early.
    static func astring(_ value: String) throws -> String {
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 }) else {
            throw IMAPError.protocolViolation(.malformed(reason: "argument contains a control or 8-bit character", bytes: []))
        }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
