/// Cuts the server's byte stream into whole responses: a line, plus the literals it announces
/// (`{n}` / `{n+}` at the end of a line, RFC 9051 section 4.3, RFC 7888) and the lines after them.
///
/// Framing first, grammar second: the parser then sees only complete responses, so a response
/// split at any byte boundary parses the same, and the size caps are enforced before anything is
/// held (learned from swift-nio-imap's framing handler).
public struct ResponseFramer: Sendable {
    public struct Limits: Sendable {
        /// A single literal (a message body part); larger is a protocol violation.
        public var maxLiteralBytes: Int = 64 * 1024 * 1024
        /// A line outside literals. The longest a server sends in earnest is a SEARCH answer: every UID
        /// of the folder on one line (RFC 3501 section 7.2.5), up to 11 bytes a message; a 20-year
        /// Inbox of 330,000 messages answers `UID SEARCH ALL` with 2.3 MB (issue 38), which the
        /// first limit here, 1 MB, refused mid-sync. 32 MB holds 3,000,000 UIDs; what a server can
        /// make Tern hold stays bounded by `maxResponseBytes` as before.
        public var maxLineBytes: Int = 32 * 1024 * 1024
        /// One whole response (a FETCH of many parts).
        public var maxResponseBytes: Int = 128 * 1024 * 1024

        public init() {}
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    /// Where the current response starts in `buffer`.
    private var start = 0
    /// How far the current response has been scanned.
    private var scanned = 0
    /// Where the current line of the current response starts (after the last literal).
    private var lineStart = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Bytes received but not yet returned as a response.
    public var bufferedByteCount: Int { buffer.count - start }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete response, without its final CRLF; nil when more bytes are needed.
    public mutating func next() throws(IMAPProtocolError) -> [UInt8]? {
        while true {
            guard let newline = findNewline(from: scanned) else {
                scanned = buffer.count
                if buffer.count - lineStart > limits.maxLineBytes {
                    throw .lineTooLong(prefix: Array(buffer[lineStart..<min(buffer.count, lineStart + 80)]))
                }
                return nil
            }
            var lineEnd = newline
            if lineEnd > lineStart, buffer[lineEnd - 1] == 13 { lineEnd -= 1 }
            if let literal = literalSize(lineStart: lineStart, lineEnd: lineEnd) {
                guard literal <= limits.maxLiteralBytes else { throw .literalTooLarge(literal) }
                let literalEnd = newline + 1 + literal
                guard literalEnd - start <= limits.maxResponseBytes else { throw .responseTooLarge }
                guard buffer.count >= literalEnd else {
                    scanned = newline // rescan this line once the literal is here
                    return nil
                }
                scanned = literalEnd
                lineStart = literalEnd
                continue
            }
            let response = Array(buffer[start..<lineEnd])
            start = newline + 1
            scanned = start
            lineStart = start
            if start > 65536 || start == buffer.count {
                buffer.removeFirst(start)
                scanned -= start
                lineStart -= start
                start = 0
            }
            return response
        }
    }

    private func findNewline(from index: Int) -> Int? {
        var position = index
        while position < buffer.count {
            if buffer[position] == 10 { return position }
            position += 1
        }
        return nil
    }

    /// `{123}` or `{123+}` / `{123-}` at the end of the line, else nil.
    private func literalSize(lineStart: Int, lineEnd: Int) -> Int? {
        guard lineEnd > lineStart, buffer[lineEnd - 1] == 125 else { return nil } // }
        var position = lineEnd - 2
        if position >= lineStart, buffer[position] == 43 || buffer[position] == 45 { position -= 1 } // + or -
        var value = 0
        var digits = 0
        while position >= lineStart, buffer[position] >= 48, buffer[position] <= 57 {
            guard digits < 12 else { return Int.max }
            var multiplier = 1
            for _ in 0..<digits { multiplier *= 10 }
            value += Int(buffer[position] - 48) * multiplier
            digits += 1
            position -= 1
        }
        guard digits > 0, position >= lineStart, buffer[position] == 123 else { return nil } // {
        // `~{n}` is a binary literal (RFC 3516); same framing.
        return value
    }
}

/// What the server sent that IMAP does not allow; the offending bytes are kept for the log.
public enum IMAPProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    case literalTooLarge(Int)
    case lineTooLong(prefix: [UInt8])
    case responseTooLarge
    case nestingTooDeep
    case malformed(reason: String, bytes: [UInt8])

    public var description: String {
        switch self {
        case .literalTooLarge(let size): "server announced a literal of \(size) bytes, over the limit"
        case .lineTooLong: "server sent a line over the limit"
        case .responseTooLarge: "server response over the limit"
        case .nestingTooDeep: "server response nested too deeply"
        case .malformed(let reason, let bytes):
            "malformed server response (\(reason)): \(String(decoding: bytes.prefix(200), as: UTF8.self))"
        }
    }
}
