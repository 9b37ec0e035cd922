import Foundation
import Logging
import MailTransport
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// One IMAP connection, used by one task at a time: the task that runs `IMAPClient.withSession`'s
/// body, or the pool's connection task. Commands are sequential unless sent with `pipeline`.
///
/// Every untagged response passes through `observe` first, which keeps the selected mailbox's
/// sequence-to-UID map and hands EXISTS / EXPUNGE / VANISHED / unsolicited FETCH to the mailbox's
/// event handler, whether it arrives during a command, between commands or in IDLE (FR-SYNC-03).
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
        /// QRESYNC select: UIDs expunged since the given mod-sequence.
        public var vanished: UIDSet = UIDSet()
        /// QRESYNC select: the QRESYNC parameters were sent and the server's UIDVALIDITY is theirs, so
        /// `vanished` and `changed` are complete since the given mod-sequence (RFC 7162 section 3.2.5).
        public var resynchronized = false
        /// QRESYNC select: the flags of messages changed since the given mod-sequence.
        public var changed: [FlagUpdate] = []
    }

    /// A message's flags as a FETCH reported them, with its mod-sequence (RFC 7162).
    public struct FlagUpdate: Sendable, Hashable {
        public var uid: UInt32
        public var flags: [String]
        public var modSeq: UInt64?
    }

    /// A piece of a command: text, or a literal sent as `{n}` (waiting for `+`) or `{n+}` (LITERAL+).
    enum CommandPart {
        case text(String)
        case literal([UInt8])
        /// Ends the line, waits for `+`, then sends this (an AUTHENTICATE response without SASL-IR).
        case afterContinuation(String)
    }

    var inbound: NIOAsyncChannelInboundStream<ConnectionEvent>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let channel: any Channel
    let watch: NIOLockedValueBox<ConnectionWatch>
    let tlsContext: NIOSSLContext
    let sniHostname: String?
    let server: MailServer
    let logger: Logger
    var tagNumber = 0
    public internal(set) var capabilities: Set<String> = []
    public internal(set) var enabled: Set<String> = []
    /// RFC 4978: COMPRESS=DEFLATE is on for the rest of the connection.
    public internal(set) var isCompressed = false
    /// Bytes through the deflate handler once compression is on (compressed and plain, each way).
    public let compressionCounters = NIOLockedValueBox(DeflateCounters())
    public private(set) var greeting: ResponseState?
    public internal(set) var selected: SelectedMailbox?
    /// The selected mailbox's sequence numbers to UIDs (`SequenceMap`). EXPUNGE names sequence numbers only.
    var sequenceMap = SequenceMap()
    /// True while a FETCH command's own responses are flowing; FETCH outside it is unsolicited.
    var fetchInProgress = false
    /// Set when the connection can no longer be trusted (transport error, timeout, unreadable tagged
    /// response); the pool closes such a session instead of reusing it.
    public internal(set) var isBroken = false
    /// Receives mailbox events; the pool routes them to the per-mailbox handler.
    public var eventSink: (@Sendable (_ mailbox: String, _ event: MailboxEvent) -> Void)?
    /// Asked at each watchdog tick: the pool's caller gave up, so the command is abandoned.
    public var cancellationCheck: (() -> Bool)?
    var isCancelled: Bool { Task.isCancelled || (cancellationCheck?() ?? false) }

    /// Between commands: throws `CancellationError` when the task the session works for was
    /// cancelled (a pool job's caller, whose cancellation does not reach the connection's task).
    public func checkCancellation() throws {
        if isCancelled { throw CancellationError() }
    }
    /// Messages taken from the connection: at STARTTLS every one delivered must have been read.
    private(set) var messagesRead = 0
    /// Untagged responses that did not parse and belonged to no FETCH: kept for the log.
    public private(set) var skippedResponses: [QuarantinedResponse] = []

    init(
        inbound: NIOAsyncChannelInboundStream<ConnectionEvent>.AsyncIterator, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        channel: any Channel, watch: NIOLockedValueBox<ConnectionWatch>, tlsContext: NIOSSLContext, sniHostname: String?,
        server: MailServer, logger: Logger
    ) {
        self.inbound = inbound
        self.outbound = outbound
        self.channel = channel
        self.watch = watch
        self.tlsContext = tlsContext
        self.sniHostname = sniHostname
        self.server = server
        self.logger = logger
    }

    func markBroken() { isBroken = true }

    public func hasCapability(_ name: String) -> Bool {
        let name = name.uppercased()
        return capabilities.contains(name) && !server.ignoredCapabilities.contains(name)
    }

    /// Greeting, then STARTTLS when asked for, then the capabilities.
    func start() async throws {
        beginWaiting()
        defer { endWaiting() }
        var greetingState: ResponseState?
        while greetingState == nil {
            switch try await nextEvent() {
            case .message(.response(.untagged(.state(let state)))): greetingState = state
            case .tick(let silence): try checkStuck(silence)
            default: throw IMAPError.protocolViolation(.malformed(reason: "no greeting", bytes: []))
            }
        }
        guard let greeting = greetingState, greeting.status == .ok || greeting.status == .preauth else {
            throw IMAPError.server(status: greetingState?.status ?? .bad, text: greetingState?.text ?? "")
        }
        self.greeting = greeting
        if case .capability(let list)? = greeting.code { capabilities = Set(list.map { $0.uppercased() }) }
        if server.security == .startTLS {
            if capabilities.isEmpty { try await refreshCapabilities() }
            guard capabilities.contains("STARTTLS") else {
                throw IMAPError.tlsRefused("\(server.host):\(server.port) does not offer STARTTLS; Tern never logs in without TLS")
            }
            watch.withLockedValue { $0.startTLSPending = true }
            try await execute("STARTTLS")
            do {
                try await STARTTLS.addTLS(
                    to: channel, framer: IMAPStreamFramer.self, messagesRead: messagesRead, context: tlsContext,
                    serverHostname: sniHostname, server: server, watch: watch)
            } catch {
                isBroken = true
                throw IMAPClient.classify(error, server: server)
            }
            capabilities = [] // RFC 9051 section 6.2.1: capabilities before STARTTLS are discarded
        }
        if capabilities.isEmpty { try await refreshCapabilities() }
    }

    // MARK: - Running commands

    /// Runs one command and gathers its untagged responses.
    @discardableResult
    public func execute(_ command: String) async throws -> CommandResult {
        var untagged: [UntaggedResponse] = []
        let state = try await run([.text(command)]) { untagged.append($0) }
        return CommandResult(untagged: untagged, state: state)
    }

    /// Sends independent commands back to back and reads their answers (RFC 9051 section 5.5),
    /// one round trip instead of one per command. Untagged responses are returned together.
    public func pipeline(_ commands: [String]) async throws -> CommandResult {
        guard !commands.isEmpty else { return CommandResult(untagged: [], state: ResponseState(status: .ok, text: "")) }
        beginWaiting()
        defer { endWaiting() }
        var bytes: [UInt8] = []
        var tags: [String] = []
        for command in commands {
            tags.append(nextTag())
            bytes += Array("\(tags.last!) \(command)\r\n".utf8)
        }
        try await send(bytes)
        var untagged: [UntaggedResponse] = []
        var failure: IMAPError?
        var last = ResponseState(status: .ok, text: "")
        for (tag, command) in zip(tags, commands) {
            do {
                last = try await collect(tag: tag, command: command) { untagged.append($0) }
            } catch let error as IMAPError where !isBroken {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return CommandResult(untagged: untagged, state: last)
    }

    func nextTag() -> String {
        tagNumber += 1
        return "t\(tagNumber)"
    }

    /// Sends a command, its literals as the server allows, and reads until its tagged answer.
    func run(
        _ parts: [CommandPart], onUnparseable: ((QuarantinedResponse) -> Void)? = nil,
        onUntagged: (UntaggedResponse) throws -> Void
    ) async throws -> ResponseState {
        beginWaiting()
        defer { endWaiting() }
        let tag = nextTag()
        var commandText = ""
        var pending = Array("\(tag) ".utf8)
        for part in parts {
            switch part {
            case .text(let text):
                pending += Array(text.utf8)
                if commandText.count < 64 { commandText += text }
            case .literal(let bytes):
                if hasCapability("LITERAL+") || (hasCapability("LITERAL-") && bytes.count <= 4096) {
                    pending += Array("{\(bytes.count)+}\r\n".utf8)
                } else {
                    pending += Array("{\(bytes.count)}\r\n".utf8)
                    try await send(pending)
                    pending = []
                    try await awaitContinuation(tag: tag, command: commandText, onUntagged: onUntagged)
                }
                pending += bytes
            case .afterContinuation(let text):
                pending += [13, 10]
                try await send(pending)
                try await awaitContinuation(tag: tag, command: commandText, onUntagged: onUntagged)
                pending = Array(text.utf8)
            }
        }
        pending += [13, 10]
        try await send(pending)
        return try await collect(tag: tag, command: commandText, onUnparseable: onUnparseable, onUntagged: onUntagged)
    }

    func send(_ bytes: [UInt8]) async throws {
        do {
            try await outbound.write(ByteBuffer(bytes: bytes))
        } catch {
            isBroken = true
            // A write that fails right after STARTTLS is usually the handshake failing: that error
            // waits in the inbound stream and says more than "closed".
            if let cause = await inboundError() { throw IMAPClient.classify(cause, server: server) }
            throw IMAPClient.classify(error, server: server)
        }
    }

    private func inboundError() async -> (any Error)? {
        do {
            while try await inbound.next() != nil {}
            return nil
        } catch {
            return error
        }
    }

    private func awaitContinuation(tag: String, command: String, onUntagged: (UntaggedResponse) throws -> Void) async throws {
        while true {
            switch try await nextEvent() {
            case .message(.response(.continuation)): return
            case .message(.response(.tagged(let responseTag, let state))) where responseTag == tag:
                throw Self.failure(for: state, command: command)
            case .message(.response(.tagged(let other, _))):
                isBroken = true
                throw IMAPError.protocolViolation(.malformed(reason: "response for unknown tag \(other)", bytes: []))
            case .message(.response(.untagged(let response))):
                try checkBye(response, command: command)
                observe(response)
                try onUntagged(response)
            case .message(.unparseable(let bytes, let reason)):
                try skipUnparseable(bytes: bytes, reason: reason, tag: tag, onUnparseable: nil)
            case .tick(let silence):
                try checkStuck(silence)
            }
        }
    }

    /// Reads until the tagged answer for `tag`.
    func collect(
        tag: String, command: String, onUnparseable: ((QuarantinedResponse) -> Void)? = nil,
        onUntagged: (UntaggedResponse) throws -> Void
    ) async throws -> ResponseState {
        while true {
            switch try await nextEvent() {
            case .message(.response(.tagged(let responseTag, let state))) where responseTag == tag:
                if case .capability(let list)? = state.code { capabilities = Set(list.map { $0.uppercased() }) }
                guard state.status == .ok else { throw Self.failure(for: state, command: command) }
                return state
            case .message(.response(.tagged(let other, _))):
                isBroken = true
                throw IMAPError.protocolViolation(.malformed(reason: "response for unknown tag \(other)", bytes: []))
            case .message(.response(.untagged(let response))):
                try checkBye(response, command: command)
                observe(response)
                try onUntagged(response)
            case .message(.response(.continuation(let text))):
                // AUTHENTICATE failures (XOAUTH2) send a challenge with the error; an empty line ends it.
                // Its text is part of the exchange and stays out of the log (issue 21).
                if command.uppercased().hasPrefix("AUTHENTICATE") {
                    logger.debug("authentication answered with a challenge; ending the exchange")
                    try await send([13, 10])
                } else {
                    isBroken = true
                    throw IMAPError.protocolViolation(.malformed(reason: "unexpected continuation", bytes: Array(text.utf8)))
                }
            case .message(.unparseable(let bytes, let reason)):
                try skipUnparseable(bytes: bytes, reason: reason, tag: tag, onUnparseable: onUnparseable)
            case .tick(let silence):
                try checkStuck(silence)
            }
        }
    }

    static func failure(for state: ResponseState, command: String) -> IMAPError {
        let verb = command.split(separator: " ").first.map { $0.uppercased() } ?? ""
        if ["LOGIN", "AUTHENTICATE"].contains(verb) { return .authenticationFailed(state.text) }
        return .server(status: state.status, text: state.text)
    }

    private func checkBye(_ response: UntaggedResponse, command: String) throws {
        guard case .state(let state) = response, state.status == .bye, !command.uppercased().hasPrefix("LOGOUT") else { return }
        isBroken = true
        throw IMAPError.server(status: .bye, text: state.text)
    }

    /// A response that did not parse: fatal when it is the command's own tagged answer; a FETCH goes
    /// to the command's isolation logic; anything else is logged and skipped.
    private func skipUnparseable(bytes: [UInt8], reason: String, tag: String, onUnparseable: ((QuarantinedResponse) -> Void)?) throws {
        if bytes.starts(with: Array("\(tag) ".utf8)) {
            isBroken = true
            throw IMAPError.protocolViolation(.malformed(reason: reason, bytes: bytes))
        }
        let (sequence, uid) = UnparseableFetch.identify(bytes)
        let entry = QuarantinedResponse(uid: uid ?? sequence.flatMap { sequenceMap.uid(at: $0) }, sequence: sequence, reason: reason, bytes: bytes)
        if sequence != nil, let onUnparseable {
            onUnparseable(entry)
        } else {
            logger.warning(
                "skipped an unparseable response",
                metadata: ["reason": "\(reason)", "bytes": "\(String(decoding: bytes.prefix(2000), as: UTF8.self))"])
            if skippedResponses.count < 100 { skippedResponses.append(entry) }
        }
    }

    // MARK: - Waiting for the server

    func beginWaiting() { watch.beginWaiting() }

    func endWaiting() { watch.endWaiting() }

    func nextEvent() async throws -> ConnectionEvent {
        do {
            guard let event = try await inbound.next() else {
                isBroken = true
                throw IMAPError.connectionClosed
            }
            if case .message = event { messagesRead += 1 }
            return event
        } catch let error as IMAPError {
            isBroken = true
            throw error
        } catch let error as CancellationError {
            isBroken = true
            throw error
        } catch {
            isBroken = true
            throw IMAPClient.classify(error, server: server)
        }
    }

    /// A command waits with no byte from the server for longer than `commandTimeout`: the
    /// connection is stuck (an idle connection is one with no command outstanding).
    func checkStuck(_ silence: Duration) throws {
        if isCancelled {
            isBroken = true
            throw CancellationError()
        }
        if silence >= server.commandTimeout ?? IMAPClient.defaultCommandTimeout {
            isBroken = true
            throw IMAPError.timeout(
                "\(server.host):\(server.port) sent nothing for \(silence.seconds) s while a command was outstanding; the connection is stuck")
        }
    }

    // MARK: - Mailbox state

    /// Keeps the sequence-to-UID map and emits mailbox events.
    func observe(_ response: UntaggedResponse) {
        guard let mailbox = selected?.name else { return }
        let expungedUID = sequenceMap.apply(response)
        switch response {
        case .exists(let count):
            selected?.exists = count
            eventSink?(mailbox, .exists(count: count))
        case .expunge(let sequence):
            selected?.exists = sequenceMap.count
            eventSink?(mailbox, .expunged(sequence: sequence, uid: expungedUID))
        case .vanished(let earlier, let uids):
            if earlier {
                selected?.vanished.formUnion(uids)
            } else {
                selected?.exists = sequenceMap.count
                eventSink?(mailbox, .vanished(uids))
            }
        case .fetch(let sequence, let attributes):
            guard !fetchInProgress else { return }
            var flags: [String]?
            var modSeq: UInt64?
            for attribute in attributes {
                switch attribute {
                case .flags(let value): flags = value
                case .modSeq(let value): modSeq = value
                default: break
                }
            }
            if let flags {
                eventSink?(mailbox, .flagsChanged(sequence: sequence, uid: sequenceMap.uid(at: sequence), flags: flags, modSeq: modSeq))
            }
        default:
            break
        }
    }

    /// The UID of a sequence number, when known.
    public func uid(forSequence sequence: UInt32) -> UInt32? { sequenceMap.uid(at: sequence) }

    // MARK: - Arguments

    /// A mailbox in modified UTF-7, quoted.
    static func mailboxArgument(_ mailbox: MailboxPath) throws -> String {
        try astring(mailbox.wire)
    }

    /// A quoted string; a value that cannot be quoted (CR, LF, NUL, 8-bit) is refused rather than
    /// sent in a way that could end the command early.
    static func astring(_ value: String) throws -> String {
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F || $0 == 0x09 }) else {
            throw IMAPError.invalidArgument("argument contains a control or 8-bit character")
        }
        var quoted = "\""
        for character in value.unicodeScalars {
            if character == "\\" || character == "\"" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }
}

extension Duration {
    var seconds: Int64 { components.seconds }
}

/// Reads `* n FETCH` and a `UID n` out of a response that did not parse, so it can be refetched.
enum UnparseableFetch {
    static func identify(_ bytes: [UInt8]) -> (sequence: UInt32?, uid: UInt32?) {
        guard bytes.starts(with: [42, 32]) else { return (nil, nil) } // "* "
        var index = 2
        var sequence: UInt32 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57, digits < 10 {
            sequence = sequence &* 10 &+ UInt32(bytes[index] - 48)
            index += 1
            digits += 1
        }
        guard digits > 0, index + 6 <= bytes.count,
            String(decoding: bytes[index..<index + 6], as: UTF8.self).uppercased() == " FETCH"
        else { return (nil, nil) }
        return (sequence, findUID(bytes, from: index + 6))
    }

    private static func findUID(_ bytes: [UInt8], from start: Int) -> UInt32? {
        let pattern: [UInt8] = Array("UID ".utf8)
        var index = start
        while index + pattern.count < bytes.count {
            if bytes[index] | 0x20 == 0x75, bytes[index + 1] | 0x20 == 0x69, bytes[index + 2] | 0x20 == 0x64, bytes[index + 3] == 32,
                index == 0 || bytes[index - 1] == 40 || bytes[index - 1] == 32
            {
                var value: UInt32 = 0
                var position = index + 4
                var digits = 0
                while position < bytes.count, bytes[position] >= 48, bytes[position] <= 57, digits < 10 {
                    value = value &* 10 &+ UInt32(bytes[position] - 48)
                    position += 1
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            index += 1
        }
        return nil
    }
}
