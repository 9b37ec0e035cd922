import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A message read from bytes: headers, part tree, chosen bodies, attachments, and what was wrong.
public struct ParsedMessage: Sendable {
    public var headers: HeaderSection
    public var from: [MailboxAddress]
    public var sender: MailboxAddress?
    public var to: [MailboxAddress]
    public var cc: [MailboxAddress]
    public var bcc: [MailboxAddress]
    public var replyTo: [MailboxAddress]
    public var subject: String
    /// nil when the Date header is missing or unreadable: the caller uses INTERNALDATE.
    public var date: Date?
    public var messageId: String?
    public var inReplyTo: [String]
    public var references: [String]
    public var structure: MIMEPart
    public var bodyPlain: String?
    public var bodyHTML: String?
    /// FR-SYNC-01 step 7: a body exceeded the 10 MB limit and was cut.
    public var bodyTruncated: Bool
    public var attachments: [AttachmentInfo]
    public var problems: [ParseProblem]
    /// FR-SYNC-01 step 6: the canonical key for messages whose Message-ID is missing or not unique.
    public var dedupKey: String

    /// Leaf part bodies by section, as ranges of the raw bytes (for attachment content).
    let leafRanges: [String: Range<Int>]
    let parts: [String: MIMEPart]
    let raw: [UInt8]

    /// The decoded content of a leaf part (an attachment's bytes), or nil for an unknown part.
    public func content(ofPart partId: String) -> [UInt8]? {
        guard let range = leafRanges[partId], let part = parts[partId] else { return nil }
        return TransferDecoding.decode(raw[range], encoding: part.transferEncoding)
    }
}

/// Parses Internet messages (RFC 5322, MIME RFC 2045-2049) as tolerantly as real mail requires:
/// malformed input never crashes and yields a best-effort message plus a list of problems.
public struct MessageParser: Sendable {
    /// FR-SYNC-01 step 7.
    public var maxBodyBytes = 10 * 1024 * 1024
    public var maxDepth = 50
    public var maxParts = 10_000

    public init() {}

    public func parse(_ bytes: [UInt8]) -> ParsedMessage {
        var state = State(bytes: bytes, parser: self)
        let (headers, bodyStart) = HeaderSection.parse(bytes, from: 0, to: bytes.count, problems: &state.problems, partId: "")
        let root = state.parseBody(headers: headers, bodyStart: bodyStart, end: bytes.count, partId: "", depth: 0, isRoot: true)
        var addressProblems: [String] = []

        func addresses(_ name: String) -> [MailboxAddress] {
            headers.all(name).flatMap { AddressParser.parse($0.rawValue, problems: &addressProblems) }
        }
        let from = addresses("from")
        // Unfolding leaves no line breaks; a stray CR or LF from an encoded word is dropped too.
        let subject = headers.first("subject").map { field -> String in
            let value = field.decodedValue
            return value.utf8.contains(where: { $0 == ASCII.cr || $0 == ASCII.lf })
                ? String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }.map(Character.init)) : value
        } ?? ""
        var date: Date?
        if let dateField = headers.first("date") {
            let text = String(headerBytes: dateField.rawValue)
            date = DateParser.parse(text)
            if date == nil { state.problems.append(ParseProblem(.malformedDate, partId: "", "unreadable Date: \(text.prefix(60))")) }
        } else {
            state.problems.append(ParseProblem(.missingHeader, partId: "", "no Date header"))
        }
        if from.isEmpty { state.problems.append(ParseProblem(.missingHeader, partId: "", "no From address")) }
        let messageIdField = headers.first("message-id").map { String(headerBytes: $0.rawValue) }
        let messageId = messageIdField.flatMap(MessageIDParser.parseSingle)
        if messageId == nil { state.problems.append(ParseProblem(.missingHeader, partId: "", "no usable Message-ID")) }
        if headers.all("message-id").count > 1 {
            state.problems.append(ParseProblem(.malformedHeader, partId: "", "more than one Message-ID header"))
        }
        for problem in Set(addressProblems) { state.problems.append(ParseProblem(.malformedAddress, partId: "", problem)) }

        let plan = BodyPlanner.plan(root)
        let parts = MIMEPart.byId(root)
        var truncated = false
        let plain = state.text(of: plan.plainPartIds, parts: parts, truncated: &truncated)
        let html = state.text(of: plan.htmlPartIds, parts: parts, truncated: &truncated)
        let to = addresses("to")
        let cc = addresses("cc")
        let references = headers.first("references").map { MessageIDParser.parseList(String(headerBytes: $0.rawValue)) } ?? []
        let inReplyTo = headers.first("in-reply-to").map { MessageIDParser.parseList(String(headerBytes: $0.rawValue)) } ?? []

        return ParsedMessage(
            headers: headers, from: from, sender: addresses("sender").first, to: to, cc: cc, bcc: addresses("bcc"),
            replyTo: addresses("reply-to"), subject: subject, date: date, messageId: messageId, inReplyTo: inReplyTo,
            references: references, structure: root, bodyPlain: plain, bodyHTML: html, bodyTruncated: truncated,
            attachments: plan.attachments, problems: state.problems,
            dedupKey: DedupKey.make(from: from, to: to, cc: cc, subject: subject,
                                    dateHeader: headers.first("date").map { String(headerBytes: $0.rawValue) },
                                    messageId: messageIdField),
            leafRanges: state.leafRanges, parts: parts, raw: bytes)
    }

    public func parse(_ data: Data) -> ParsedMessage { parse([UInt8](data)) }

    struct State {
        /// Bodies are stored and shown with LF line breaks, whatever the wire used. Done on bytes before
        /// charset decoding: CR and LF are the same bytes in every charset mail bodies use.
        static func normalizeLineBreaks(_ bytes: [UInt8]) -> [UInt8] {
            bytes.withUnsafeBufferPointer { input in
                guard let base = input.baseAddress, memchr(base, Int32(ASCII.cr), input.count) != nil else { return bytes }
                return [UInt8](unsafeUninitializedCapacity: input.count) { output, initialized in
                    // Copy the runs between CRs whole; a CR becomes LF, a CRLF becomes LF.
                    var count = 0
                    var index = 0
                    while index < input.count {
                        let remaining = input.count - index
                        let found = memchr(base + index, Int32(ASCII.cr), remaining)
                        let runEnd = found.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? input.count
                        let runLength = runEnd - index
                        if runLength > 0 {
                            (output.baseAddress! + count).update(from: base + index, count: runLength)
                            count += runLength
                        }
                        guard runEnd < input.count else { break }
                        output[count] = ASCII.lf
                        count += 1
                        index = runEnd + 1
                        if index < input.count && input[index] == ASCII.lf { index += 1 }
                    }
                    initialized = count
                }
            }
        }

        let bytes: [UInt8]
        let parser: MessageParser
        var problems: [ParseProblem] = []
        var leafRanges: [String: Range<Int>] = [:]
        var partCount = 0

        init(bytes: [UInt8], parser: MessageParser) {
            self.bytes = bytes
            self.parser = parser
        }

        mutating func parseBody(headers: HeaderSection, bodyStart: Int, end: Int, partId: String, depth: Int, isRoot: Bool,
                                defaultType: String = "text/plain") -> MIMEPart {
            partCount += 1
            var headerProblems: [String] = []
            var contentType = ParameterizedValue(value: defaultType, parameters: ["charset": "us-ascii"])
            if let field = headers.first("content-type") {
                let parsed = ParameterizedValue.parse(field.rawValue, problems: &headerProblems)
                if parsed.value.contains("/"), !parsed.value.hasSuffix("/"), !parsed.value.hasPrefix("/") {
                    contentType = parsed
                } else {
                    headerProblems.append("invalid Content-Type '\(parsed.value)', read as \(defaultType)")
                    contentType.parameters.merge(parsed.parameters) { _, new in new }
                }
            }
            let disposition = headers.first("content-disposition").map { ParameterizedValue.parse($0.rawValue, problems: &headerProblems) }
            let encoding = headers.first("content-transfer-encoding").map {
                String(headerBytes: $0.rawValue.trimmingWhitespace()).lowercasedASCII
            } ?? "7bit"
            let contentId = headers.first("content-id").flatMap { field -> String? in
                let text = String(headerBytes: field.rawValue).trimmingSpaces()
                let stripped = text.hasPrefix("<") && text.hasSuffix(">") ? String(text.dropFirst().dropLast()) : text
                return stripped.isEmpty ? nil : stripped
            }
            for problem in headerProblems { problems.append(ParseProblem(.malformedHeader, partId: partId, problem)) }

            let leafId = isRoot ? "1" : partId
            var part = MIMEPart(
                partId: leafId, contentType: contentType.value, parameters: contentType.parameters, contentId: contentId,
                contentDescription: headers.first("content-description")?.decodedValue, transferEncoding: encoding,
                sizeBytes: max(0, end - bodyStart), disposition: disposition?.value,
                dispositionParameters: disposition?.parameters ?? [:])

            if contentType.value.hasPrefix("multipart/") {
                part.partId = partId
                guard depth < parser.maxDepth, partCount < parser.maxParts else {
                    problems.append(ParseProblem(.limit, partId: partId, "nesting or part count limit reached; rest kept as one part"))
                    part.contentType = "application/octet-stream"
                    leafRanges[leafId] = bodyStart..<end
                    part.partId = leafId
                    return part
                }
                guard let boundary = contentType.parameters["boundary"], !boundary.isEmpty else {
                    problems.append(ParseProblem(.multipart, partId: partId, "multipart without boundary, read as text"))
                    part.contentType = "text/plain"
                    part.partId = leafId
                    leafRanges[leafId] = bodyStart..<end
                    return part
                }
                let split = MultipartSplitter.split(bytes, from: bodyStart, to: end, boundary: Array(boundary.utf8))
                if split.parts.isEmpty {
                    problems.append(ParseProblem(.multipart, partId: partId, "boundary never appears, body read as text"))
                    part.contentType = "text/plain"
                    part.partId = leafId
                    leafRanges[leafId] = bodyStart..<end
                    return part
                }
                if !split.closed { problems.append(ParseProblem(.multipart, partId: partId, "missing final boundary")) }
                let childDefault = contentType.value == "multipart/digest" ? "message/rfc822" : "text/plain"
                for (number, range) in split.parts.enumerated() {
                    let childId = partId.isEmpty ? "\(number + 1)" : "\(partId).\(number + 1)"
                    // The limit counts the parts of the whole message, checked before each one.
                    if partCount >= parser.maxParts {
                        let rest = range.lowerBound..<split.parts[split.parts.count - 1].upperBound
                        problems.append(ParseProblem(.limit, partId: partId,
                                                     "part limit (\(parser.maxParts)) reached; \(split.parts.count - number) more parts kept as one"))
                        partCount += 1
                        leafRanges[childId] = rest
                        part.children.append(MIMEPart(partId: childId, contentType: "application/octet-stream", transferEncoding: "8bit",
                                                      sizeBytes: rest.count))
                        break
                    }
                    let (childHeaders, childBodyStart) = HeaderSection.parse(bytes, from: range.lowerBound, to: range.upperBound,
                                                                             problems: &problems, partId: childId)
                    part.children.append(parseBody(headers: childHeaders, bodyStart: childBodyStart, end: range.upperBound,
                                                   partId: childId, depth: depth + 1, isRoot: false, defaultType: childDefault))
                }
                return part
            }

            leafRanges[leafId] = bodyStart..<end
            if part.isMessage, depth < parser.maxDepth, partCount < parser.maxParts, encoding != "base64", encoding != "quoted-printable" {
                // message/rfc822: the enclosed message's structure, numbered as IMAP does (2 → 2.1…).
                let (innerHeaders, innerBodyStart) = HeaderSection.parse(bytes, from: bodyStart, to: end, problems: &problems, partId: leafId)
                var inner = parseBody(headers: innerHeaders, bodyStart: innerBodyStart, end: end, partId: leafId,
                                      depth: depth + 1, isRoot: false)
                if !inner.isMultipart {
                    inner.partId = "\(leafId).1"
                    leafRanges["\(leafId).1"] = innerBodyStart..<end
                }
                leafRanges[leafId] = bodyStart..<end
                part.children = [inner]
                if part.dispositionParameters["filename"] == nil, part.parameters["name"] == nil,
                   let subject = innerHeaders.first("subject")?.decodedValue, !subject.isEmpty {
                    part.parameters["name"] = subject + ".eml"
                }
            }
            if !["7bit", "8bit", "binary", "base64", "quoted-printable", "x-uuencode", "uuencode"].contains(encoding) {
                problems.append(ParseProblem(.encoding, partId: leafId, "unknown transfer encoding '\(encoding)', read as 8bit"))
            }
            return part
        }

        /// Looked up by id, not searched for: a message can have 10,000 body parts (issue 21).
        mutating func text(of partIds: [String], parts: [String: MIMEPart], truncated: inout Bool) -> String? {
            guard !partIds.isEmpty else { return nil }
            var pieces: [String] = []
            var total = 0
            for partId in partIds {
                guard let part = parts[partId], part.children.isEmpty, let range = leafRanges[partId] else { continue }
                var budget = parser.maxBodyBytes - total
                let wasTruncated = truncated
                let decoded = BodyText.decode(bytes[range], part: part, limit: &budget, truncated: &truncated)
                total = parser.maxBodyBytes - budget
                if truncated, !wasTruncated { problems.append(ParseProblem(.limit, partId: partId, "body larger than 10 MB truncated")) }
                if let problem = decoded.charsetProblem { problems.append(ParseProblem(.charset, partId: partId, problem)) }
                pieces.append(decoded.text)
                if truncated { break }
            }
            return pieces.isEmpty ? nil : pieces.joined(separator: "\n")
        }
    }
}

extension TransferDecoding {
    public static func decode(_ bytes: ArraySlice<UInt8>, encoding: String) -> [UInt8] {
        switch encoding {
        case "base64": decodeBase64(bytes).bytes
        case "quoted-printable": decodeQuotedPrintable(bytes)
        default: Array(bytes)
        }
    }
}

/// Splits a multipart body at its boundary (RFC 2046 section 5.1.1): the CRLF before a delimiter
/// belongs to it; preamble and epilogue are skipped; a missing close delimiter ends the last part
/// at the end of the body; a line that merely starts with a longer boundary is not a delimiter.
enum MultipartSplitter {
    static func split(_ bytes: [UInt8], from start: Int, to end: Int, boundary: [UInt8]) -> (parts: [Range<Int>], closed: Bool) {
        var parts: [Range<Int>] = []
        var partStart: Int?
        var closed = false
        bytes.withUnsafeBufferPointer { buffer in
            boundary.withUnsafeBufferPointer { boundaryBuffer in
                var lineStart = start
                while lineStart < end {
                    if isDelimiter(buffer, at: lineStart, end: end, boundary: boundaryBuffer) {
                        var afterBoundary = lineStart + 2 + boundaryBuffer.count
                        let isClose = afterBoundary + 1 < end && buffer[afterBoundary] == ASCII.hyphen && buffer[afterBoundary + 1] == ASCII.hyphen
                        if let open = partStart {
                            var contentEnd = lineStart
                            if contentEnd > open, buffer[contentEnd - 1] == ASCII.lf { contentEnd -= 1 }
                            if contentEnd > open, buffer[contentEnd - 1] == ASCII.cr { contentEnd -= 1 }
                            parts.append(open..<max(open, contentEnd))
                        }
                        while afterBoundary < end, buffer[afterBoundary] != ASCII.lf { afterBoundary += 1 }
                        let nextLine = min(end, afterBoundary + 1)
                        if isClose {
                            closed = true
                            partStart = nil
                            return
                        }
                        partStart = nextLine
                        lineStart = nextLine
                        continue
                    }
                    // Next line.
                    guard let base = buffer.baseAddress,
                          let found = memchr(base + lineStart, Int32(ASCII.lf), end - lineStart) else { return }
                    lineStart = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                }
            }
        }
        if let open = partStart, !closed { parts.append(open..<end) }
        return (parts, closed)
    }

    @inline(__always)
    static func isDelimiter(_ buffer: UnsafeBufferPointer<UInt8>, at position: Int, end: Int, boundary: UnsafeBufferPointer<UInt8>) -> Bool {
        let length = boundary.count
        guard position + 2 + length <= end, buffer[position] == ASCII.hyphen, buffer[position + 1] == ASCII.hyphen else { return false }
        for offset in 0..<length where buffer[position + 2 + offset] != boundary[offset] { return false }
        let after = position + 2 + length
        guard after < end else { return true }
        let byte = buffer[after]
        if byte == ASCII.hyphen { return after + 1 < end && buffer[after + 1] == ASCII.hyphen }
        return byte == ASCII.cr || byte == ASCII.lf || byte == ASCII.space || byte == ASCII.tab
    }
}
