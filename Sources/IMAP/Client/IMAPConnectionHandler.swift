import MailTransport

/// What an IMAP connection delivers: a parsed response, or the bytes of one that did not parse
/// (isolated, so one bad message does not drop the connection).
enum IMAPInbound: Sendable {
    case response(IMAPResponse)
    case unparseable(bytes: [UInt8], reason: String)
}

typealias ConnectionEvent = TransportEvent<IMAPInbound>

/// `ResponseFramer` for framing and size caps (fatal when exceeded), `ResponseParser` for the
/// grammar (a failure costs one response only).
struct IMAPStreamFramer: StreamFramer {
    var framer = ResponseFramer()
    let parser = ResponseParser()

    mutating func append(_ bytes: [UInt8]) { framer.append(bytes) }

    mutating func nextMessage() throws -> IMAPInbound? {
        guard let frame = try framer.next() else { return nil }
        do {
            return .response(try parser.parse(frame))
        } catch {
            return .unparseable(bytes: frame, reason: error.description)
        }
    }

    var bufferedByteCount: Int { framer.bufferedByteCount }
}

/// The connection's framing and parsing without the connection: for benchmarks and replaying
/// recorded sessions (and the fuzzer), with the selected mailbox's sequence-to-UID map kept as
/// the session keeps it.
public struct IMAPResponseStream {
    var framer = IMAPStreamFramer()
    var sequenceMap = SequenceMap()

    public init() {}

    /// The message count EXISTS, EXPUNGE and VANISHED have left.
    public var messageCount: UInt32 { sequenceMap.count }

    /// The UID of a sequence number, when a FETCH told it.
    public func uid(forSequence sequence: UInt32) -> UInt32? { sequenceMap.uid(at: sequence) }

    /// Feeds bytes; `onFetch` sees each FETCH as a `FetchedMessage`. Unparseable responses are skipped.
    public mutating func append(_ bytes: ArraySlice<UInt8>, onFetch: (FetchedMessage) -> Void) throws {
        framer.append(Array(bytes))
        while let message = try framer.nextMessage() {
            guard case .response(.untagged(let response)) = message else { continue }
            _ = sequenceMap.apply(response)
            if case .fetch(let sequence, let attributes) = response {
                onFetch(FetchedMessage(sequence: sequence, attributes: attributes))
            }
        }
    }
}
