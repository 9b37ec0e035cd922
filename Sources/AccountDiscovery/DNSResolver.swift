import Foundation
import NIOCore
import NIOPosix

/// Why a DNS question got no answer.
public enum DNSLookupError: Error, Sendable, Hashable {
    case noServer
    case unreachable(String)
    case timedOut
    /// The server answered with an error other than "no such name" (SERVFAIL, REFUSED, …).
    case serverError(UInt8)
    case malformedAnswer(String)

    /// No resolver could be asked or none answered: other questions would fare no better now.
    public var noResolverAnswers: Bool {
        switch self {
        case .noServer, .unreachable, .timedOut: true
        case .serverError, .malformedAnswer: false
        }
    }
}

/// Where DNS questions go: the system's resolvers (`nameserver` lines of /etc/resolv.conf), or
/// `TERN_DNS_SERVER=HOST:PORT` (an address literal; tests point it at their own server).
public struct DNSResolverConfiguration: Sendable, Hashable {
    public var servers: [SocketAddress]
    public var timeout: TimeAmount
    public var attempts: Int

    public init(servers: [SocketAddress], timeout: TimeAmount = .seconds(3), attempts: Int = 2) {
        self.servers = servers
        self.timeout = timeout
        self.attempts = attempts
    }

    public static func system(environment: [String: String], resolvConf: String = "/etc/resolv.conf") -> DNSResolverConfiguration {
        if let override = environment["TERN_DNS_SERVER"], let address = socketAddress(override) {
            return DNSResolverConfiguration(servers: [address], timeout: .seconds(2), attempts: 1)
        }
        let text = (try? String(contentsOfFile: resolvConf, encoding: .utf8)) ?? ""
        return DNSResolverConfiguration(servers: Array(nameservers(resolvConf: text).prefix(3)))
    }

    /// The `nameserver` addresses of a resolv.conf, port 53.
    static func nameservers(resolvConf: String) -> [SocketAddress] {
        resolvConf.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver" else { return nil }
            let host = fields[1].split(separator: "%").first.map(String.init) ?? ""
            return try? SocketAddress(ipAddress: host, port: 53)
        }
    }

    /// `HOST:PORT` or `[V6]:PORT` with an address literal.
    static func socketAddress(_ text: String) -> SocketAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return try? SocketAddress(ipAddress: host, port: port)
    }
}

/// A stub resolver over SwiftNIO: one question per call, sent over UDP to each configured server in
/// turn, and again over TCP when the answer comes back truncated (RFC 7766). The answer must carry
/// the question's id and come from the server asked.
public struct DNSResolver: Sendable {
    let configuration: DNSResolverConfiguration

    public init(configuration: DNSResolverConfiguration) {
        self.configuration = configuration
    }

    /// The answer records of `type` for `name`; empty when the name or the records do not exist.
    public func lookUp(_ name: String, type: DNSMessage.RecordType) async throws(DNSLookupError) -> [DNSMessage.Record] {
        guard !configuration.servers.isEmpty else { throw .noServer }
        var lastError = DNSLookupError.noServer
        for server in configuration.servers {
            for _ in 0..<max(1, configuration.attempts) {
                let started = ContinuousClock.now
                do {
                    let answer = try await exchange(name, type: type, server: server)
                    switch answer.responseCode {
                    case DNSMessage.noError: return answer.answers.filter { $0.type == type }
                    case DNSMessage.nameError: return []
                    default: throw DNSLookupError.serverError(answer.responseCode)
                    }
                } catch let error as DNSLookupError {
                    lastError = error
                } catch {
                    // The deadline closes the channel, which ends the exchange with an I/O error.
                    let waited = ContinuousClock.now - started >= .nanoseconds(configuration.timeout.nanoseconds)
                    lastError = waited ? .timedOut : .unreachable(String(describing: error))
                }
            }
        }
        throw lastError
    }

    func exchange(_ name: String, type: DNSMessage.RecordType, server: SocketAddress) async throws -> DNSMessage {
        let id = UInt16.random(in: 0...UInt16.max)
        let query: [UInt8]
        do { query = try DNSMessage.query(id: id, name: name, type: type) } catch {
            throw DNSLookupError.malformedAnswer("the name \(name) cannot be asked")
        }
        var answer = try Self.answer(to: try await udpExchange(query, id: id, server: server), id: id)
        if answer.isTruncated {
            answer = try Self.answer(to: try await tcpExchange(query, server: server), id: id)
        }
        return answer
    }

    static func answer(to bytes: [UInt8], id: UInt16) throws -> DNSMessage {
        let message: DNSMessage
        do { message = try DNSMessage.parse(bytes) } catch { throw DNSLookupError.malformedAnswer(String(describing: error)) }
        guard message.isResponse, message.id == id else { throw DNSLookupError.malformedAnswer("an answer to another question") }
        return message
    }

    func udpExchange(_ query: [UInt8], id: UInt16, server: SocketAddress) async throws -> [UInt8] {
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: server.protocol == .inet6 ? "::" : "0.0.0.0", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>(wrappingChannelSynchronously: channel)
                }
            }
        // Closing the channel ends the wait for an answer that never comes.
        let deadline = channel.channel.eventLoop.scheduleTask(in: configuration.timeout) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        let answer: [UInt8]? = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(AddressedEnvelope(remoteAddress: server, data: ByteBuffer(bytes: query)))
            for try await envelope in inbound {
                let bytes = Array(envelope.data.readableBytesView)
                // Only the server asked, with the question's id: anything else is noise or a spoof.
                guard envelope.remoteAddress == server, bytes.count >= 2, UInt16(bytes[0]) << 8 | UInt16(bytes[1]) == id else { continue }
                return bytes
            }
            return nil
        }
        guard let answer else { throw DNSLookupError.timedOut }
        return answer
    }

    func tcpExchange(_ query: [UInt8], server: SocketAddress) async throws -> [UInt8] {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(configuration.timeout)
            .connect(to: server) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let deadline = channel.channel.eventLoop.scheduleTask(in: configuration.timeout) { channel.channel.close(promise: nil) }
        defer { deadline.cancel() }
        let answer: [UInt8]? = try await channel.executeThenClose { inbound, outbound in
            // RFC 1035 4.2.2: a two-byte length before the message.
            try await outbound.write(ByteBuffer(bytes: [UInt8(query.count >> 8), UInt8(query.count & 0xFF)] + query))
            var received: [UInt8] = []
            for try await chunk in inbound {
                received += chunk.readableBytesView
                if received.count >= 2 {
                    let length = Int(received[0]) << 8 | Int(received[1])
                    if received.count >= 2 + length { return Array(received[2..<(2 + length)]) }
                }
            }
            return nil
        }
        guard let answer else { throw DNSLookupError.timedOut }
        return answer
    }
}
