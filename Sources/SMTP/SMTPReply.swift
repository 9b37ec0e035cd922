/// An SMTP reply (RFC 5321 section 4.2): a three-digit code, the RFC 3463 enhanced status code
/// when the server offers ENHANCEDSTATUSCODES, and its text lines.
public struct SMTPReply: Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var enhancedCode: String?
    public var lines: [String]

    public init(code: Int, enhancedCode: String? = nil, lines: [String]) {
        self.code = code
        self.enhancedCode = enhancedCode
        self.lines = lines
    }

    public var text: String { lines.joined(separator: " ") }
    public var isPositive: Bool { (200..<400).contains(code) }
    public var isTransientFailure: Bool { (400..<500).contains(code) }
    public var isPermanentFailure: Bool { code >= 500 }

    public var description: String {
        "\(code)" + (enhancedCode.map { " \($0)" } ?? "") + (lines.isEmpty ? "" : " " + text)
    }
}

/// Assembles reply lines (`250-…` continued, `250 …` last) into replies. Incremental: bytes may
/// arrive split anywhere. Lines and replies are capped so a hostile server cannot exhaust memory.
public struct SMTPReplyParser: Sendable {
    public static let maxLineBytes = 4096
    public static let maxLines = 256

    private var buffer: [UInt8] = []
    private var lines: [String] = []
    private var code: Int?
    /// After a violation the stream cannot be trusted: every later call fails the same way.
    private var failure: SMTPError?

    public init() {}

    /// Bytes received but not yet part of a whole reply (checked after STARTTLS: none allowed).
    public var hasBufferedBytes: Bool { !buffer.isEmpty || !lines.isEmpty }

    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    public mutating func next() throws(SMTPError) -> SMTPReply? {
        if let failure { throw failure }
        do {
            return try parseNext()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func parseNext() throws(SMTPError) -> SMTPReply? {
        while let newline = buffer.firstIndex(of: 10) {
            var end = newline
            if end > 0, buffer[end - 1] == 13 { end -= 1 }
            let line = Array(buffer[..<end])
            buffer.removeFirst(newline + 1)
            guard line.count >= 3, line.count <= Self.maxLineBytes,
                line[0...2].allSatisfy({ $0 >= 48 && $0 <= 57 }), line.count == 3 || line[3] == 32 || line[3] == 45
            else {
                throw .protocolViolation("malformed reply line: \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            let lineCode = Int(line[0] - 48) * 100 + Int(line[1] - 48) * 10 + Int(line[2] - 48)
            if let code, code != lineCode {
                throw .protocolViolation("reply code changed within a multi-line reply (\(code), \(lineCode))")
            }
            code = lineCode
            lines.append(line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : "")
            guard lines.count <= Self.maxLines else { throw .protocolViolation("reply of over \(Self.maxLines) lines") }
            if line.count == 3 || line[3] == 32 {
                defer {
                    lines = []
                    code = nil
                }
                return Self.reply(code: lineCode, lines: lines)
            }
        }
        if buffer.count > Self.maxLineBytes { throw .protocolViolation("reply line over \(Self.maxLineBytes) bytes") }
        return nil
    }

    /// Splits `5.1.1` off each line when the first line carries an enhanced status code.
    static func reply(code: Int, lines: [String]) -> SMTPReply {
        let first = lines.first ?? ""
        let pieces = first.split(separator: " ", maxSplits: 1)
        if let candidate = pieces.first, Self.isEnhancedCode(candidate), candidate.first == first.first, candidate.first == String(code).first {
            let stripped = lines.map { line -> String in
                let parts = line.split(separator: " ", maxSplits: 1)
                return parts.first == candidate ? (parts.count > 1 ? String(parts[1]) : "") : line
            }
            return SMTPReply(code: code, enhancedCode: String(candidate), lines: stripped)
        }
        return SMTPReply(code: code, lines: lines)
    }

    static func isEnhancedCode(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }
}
