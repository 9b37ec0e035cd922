import CivilCalendar
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns an `OutgoingMIMEMessage` into RFC 5322 bytes for SMTP and IMAP APPEND (FR-SYNC-07, FR-COMP-01):
/// CRLF line endings, no line over 998 bytes, the transfer encoding chosen per part, Bcc never in
/// the header, and no way for a field's content to start a new header line. Dot-stuffing is SMTP's.
public struct MessageBuilder: Sendable {
    public init() {}

    public static func generateMessageID(domain: String) -> String {
        MessageID.generate(domain: domain)
    }

    /// `draft`: a copy for the Drafts mailbox (FR-COMP-01): recipients may be missing and Bcc is
    /// written, since the copy is the writer's own and resuming it elsewhere needs it.
    public func build(_ message: OutgoingMIMEMessage, draft: Bool = false) throws -> [UInt8] {
        try validate(message, draft: draft)
        let messageId = message.messageId ?? Self.generateMessageID(domain: domain(of: message.from.address))
        var head = ""
        head += HeaderEncoder.field("Date", Self.rfc5322Date(message.date))
        head += HeaderEncoder.field("From", mailbox(message.from))
        if !message.replyTo.isEmpty { head += HeaderEncoder.field("Reply-To", message.replyTo.map(mailbox).joined(separator: ", ")) }
        if !message.to.isEmpty { head += HeaderEncoder.field("To", message.to.map(mailbox).joined(separator: ", ")) }
        if !message.cc.isEmpty { head += HeaderEncoder.field("Cc", message.cc.map(mailbox).joined(separator: ", ")) }
        if draft, !message.bcc.isEmpty { head += HeaderEncoder.field("Bcc", message.bcc.map(mailbox).joined(separator: ", ")) }
        head += HeaderEncoder.field("Subject", HeaderEncoder.unstructured(message.subject))
        head += HeaderEncoder.field("Message-ID", messageId)
        if let inReplyTo = message.inReplyTo { head += HeaderEncoder.field("In-Reply-To", inReplyTo) }
        if !message.references.isEmpty { head += HeaderEncoder.field("References", message.references.joined(separator: " ")) }
        head += "MIME-Version: 1.0\r\n"
        if let report = message.dispositionNotification {
            var bytes = Array(head.utf8)
            bytes.append(contentsOf: try dispositionReport(report, humanText: message.bodyPlain))
            try Self.checkLineLengths(bytes)
            return bytes
        }

        let html = message.bodyHTML ?? Self.minimalHTML(from: message.bodyPlain)
        let plainPart = textPart(message.bodyPlain, subtype: "plain", flowed: true)
        var htmlPart = textPart(html, subtype: "html", flowed: false)
        let inline = message.attachments.filter { $0.contentId != nil }
        let attached = message.attachments.filter { $0.contentId == nil }
        if !inline.isEmpty {
            // RFC 2387 section 3.1: `type` names the root (the HTML, first), which the images' `cid:` URLs are resolved from.
            htmlPart = multipart("related", [htmlPart] + inline.map(attachmentPart), parameters: "; type=\"text/html\"")
        }
        var body = multipart("alternative", [plainPart, htmlPart])
        if !attached.isEmpty {
            body = multipart("mixed", [body] + attached.map(attachmentPart))
        }
        var bytes = Array(head.utf8)
        bytes.append(contentsOf: body)
        try Self.checkLineLengths(bytes)
        return bytes
    }

    /// RFC 5322 section 2.1.1. Fields fold between words and bodies are encoded within it, so this
    /// holds unless a single token is too long (a Content-ID, a media type): then the message is
    /// refused, never sent broken.
    static func checkLineLengths(_ bytes: [UInt8]) throws(MessageBuildError) {
        let overlong: Range<Int>? = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var lineStart = 0
            while lineStart < buffer.count {
                let lineEnd =
                    memchr(base + lineStart, Int32(ASCII.lf), buffer.count - lineStart)
                    .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? buffer.count
                let length = lineEnd - lineStart - (lineEnd > lineStart && buffer[lineEnd - 1] == ASCII.cr ? 1 : 0)
                if length > 998 { return lineStart..<(lineStart + length) }
                lineStart = lineEnd + 1
            }
            return nil
        }
        if let overlong {
            throw .lineTooLong(start: String(decoding: bytes[overlong].prefix(40), as: UTF8.self), length: overlong.count)
        }
    }

    // MARK: - Parts (each: its header lines, a blank line, its body; CRLF throughout)

    func textPart(_ text: String, subtype: String, flowed: Bool) -> [UInt8] {
        let normalized = Self.normalizeLineBreaks(text)
        let content = flowed ? Self.encodeFlowed(normalized) : normalized
        let bytes = Array(content.utf8)
        let isASCII = bytes.allSatisfy { $0 < 0x80 }
        let longestLine = bytes.split(separator: ASCII.lf).map(\.count).max() ?? 0
        var header = "Content-Type: text/\(subtype); charset=utf-8\(flowed ? "; format=flowed; delsp=no" : "")\r\n"
        let encodedBody: String
        if isASCII && longestLine <= 998 {
            header += "Content-Transfer-Encoding: 7bit\r\n"
            encodedBody = content.replacingOccurrences(of: "\n", with: "\r\n")
        } else if Double(bytes.filter { $0 >= 0x80 }.count) / Double(max(bytes.count, 1)) < 0.2 {
            header += "Content-Transfer-Encoding: quoted-printable\r\n"
            encodedBody = Self.quotedPrintable(bytes)
        } else {
            header += "Content-Transfer-Encoding: base64\r\n"
            encodedBody = Self.base64Lines(bytes)
        }
        var result = Array((header + "\r\n").utf8)
        result.append(contentsOf: encodedBody.utf8)
        if !encodedBody.hasSuffix("\r\n") { result.append(contentsOf: [ASCII.cr, ASCII.lf]) }
        return result
    }

    func attachmentPart(_ attachment: OutgoingMIMEAttachment) -> [UInt8] {
        let filename = MIMEPart.sanitizedFilename(attachment.filename)
        let type =
            attachment.mimeType.contains("/") && !attachment.mimeType.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ";" })
            ? attachment.mimeType.lowercased() : "application/octet-stream"
        var header = "Content-Type: \(type); \(HeaderEncoder.parameter("name", filename))\r\n"
        header += "Content-Transfer-Encoding: base64\r\n"
        if let contentId = attachment.contentId {
            header += "Content-ID: <\(contentId)>\r\n"
            header += "Content-Disposition: inline; \(HeaderEncoder.parameter("filename", filename))\r\n"
        } else {
            header += "Content-Disposition: attachment; \(HeaderEncoder.parameter("filename", filename))\r\n"
        }
        var result = Array((header + "\r\n").utf8)
        result.append(contentsOf: Self.base64Lines([UInt8](attachment.data)).utf8)
        return result
    }

    /// RFC 8098 section 3 (on RFC 6522's `multipart/report`): a human-readable part, then the
    /// `message/disposition-notification` fields. The third part, the original's header, is
    /// optional and left out: it would send back what the sender already has.
    func dispositionReport(_ report: DispositionNotificationFields, humanText: String) throws -> [UInt8] {
        let fields = try report.encoded()
        let is7bit = fields.utf8.allSatisfy { $0 < 0x80 }
        var machinePart = Array("Content-Type: message/disposition-notification\r\n".utf8)
        machinePart += Array("Content-Transfer-Encoding: \(is7bit ? "7bit" : "8bit")\r\n\r\n".utf8)
        machinePart += Array(fields.utf8)
        return multipart(
            "report", [textPart(humanText, subtype: "plain", flowed: false), machinePart], parameters: "; report-type=disposition-notification")
    }

    func multipart(_ subtype: String, _ parts: [[UInt8]], parameters: String = "") -> [UInt8] {
        var boundary: String
        repeat {
            boundary = "=_tern_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        } while parts.contains { $0.count >= boundary.utf8.count && contains($0, Array(boundary.utf8)) }
        var result = Array("Content-Type: multipart/\(subtype)\(parameters); boundary=\"\(boundary)\"\r\n\r\n".utf8)
        for part in parts {
            result.append(contentsOf: "--\(boundary)\r\n".utf8)
            result.append(contentsOf: part)
        }
        result.append(contentsOf: "--\(boundary)--\r\n".utf8)
        return result
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == first && Array(haystack[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }

    // MARK: - Validation: nothing a user typed can become a header line

    func validate(_ message: OutgoingMIMEMessage, draft: Bool = false) throws {
        if !draft, message.to.isEmpty && message.cc.isEmpty && message.bcc.isEmpty { throw MessageBuildError.noRecipients }
        func checkText(_ text: String, _ field: String) throws {
            if text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
                throw MessageBuildError.lineBreakInField(field)
            }
        }
        try checkText(message.subject, "subject")
        for (list, field) in [([message.from], "from"), (message.to, "to"), (message.cc, "cc"), (message.bcc, "bcc"), (message.replyTo, "reply-to")] {
            for address in list {
                try checkText(address.name ?? "", "\(field) name")
                try checkText(address.address, "\(field) address")
                guard Self.isValidAddress(address.address) else { throw MessageBuildError.invalidAddress(address.address) }
            }
        }
        for attachment in message.attachments {
            try checkText(attachment.filename, "attachment filename")
            try checkText(attachment.mimeType, "attachment type")
            if let contentId = attachment.contentId {
                try checkText(contentId, "content id")
                guard MessageID.isValidContentID(contentId) else { throw MessageBuildError.invalidContentID(contentId) }
            }
        }
        let ids = [("Message-ID", message.messageId), ("In-Reply-To", message.inReplyTo)] + message.references.map { ("References", $0) }
        for case (let field, let id?) in ids {
            try checkText(id, "message id")
            guard MessageID.isValid(id) else { throw MessageBuildError.invalidMessageID(field: field, id: id) }
        }
    }

    /// An address the builder will write (the drafts codec keeps half-typed ones out of the server copy).
    public static func isValidAddress(_ address: String) -> Bool {
        guard let at = address.lastIndex(of: "@"), at != address.startIndex, address.index(after: at) != address.endIndex else { return false }
        let forbidden = Set(" <>(),;:\"[]\\\t")
        return !address.contains { forbidden.contains($0) } && address.utf8.count <= 254
    }

    func mailbox(_ address: MailboxAddress) -> String {
        guard let name = address.name, !name.isEmpty else { return address.address }
        return "\(HeaderEncoder.phrase(name)) <\(address.address)>"
    }

    func domain(of address: String) -> String {
        address.split(separator: "@").last.map(String.init) ?? ""
    }

    // MARK: - Encodings

    static func normalizeLineBreaks(_ text: String) -> String {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }

    /// RFC 3676 format=flowed: long lines wrap at spaces with a trailing space (soft break); trailing
    /// spaces of hard lines go. A line's leading `>` marks are its quote depth (section 4.5), as the
    /// composer's quotes and every mail client's are: they are written once, then a space, then the
    /// text, and each piece of a wrapped quoted line carries them again. Other pieces starting with a
    /// space, `>` or `From ` are space-stuffed.
    static func encodeFlowed(_ text: String, width: Int = 76) -> String {
        var output: [String] = []
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(rawLine)
            if line != "-- " { while line.hasSuffix(" ") { line.removeLast() } }
            let depth = line.prefix { $0 == ">" }.count
            let quote = String(repeating: ">", count: depth)
            var content = String(line.dropFirst(depth))
            if depth > 0, content.hasPrefix(" ") { content.removeFirst() } // the space after the marks
            let room = max(20, width - depth - 1)
            var pieces: [String] = []
            while content.count > room, let breakIndex = content.prefix(room).lastIndex(of: " "), breakIndex > content.startIndex {
                pieces.append(String(content[...breakIndex])) // keeps the space: soft break
                content = String(content[content.index(after: breakIndex)...])
            }
            pieces.append(content)
            for piece in pieces {
                if depth > 0 {
                    output.append(piece.isEmpty ? quote : quote + " " + piece)
                } else {
                    output.append(piece.hasPrefix(" ") || piece.hasPrefix(">") || piece.hasPrefix("From ") ? " " + piece : piece)
                }
            }
        }
        return output.joined(separator: "\n")
    }

    static func quotedPrintable(_ bytes: [UInt8]) -> String {
        var output = ""
        var line = ""
        func emit(_ token: String) {
            if line.utf8.count + token.utf8.count > 75 {
                output += line + "=\r\n"
                line = ""
            }
            line += token
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.lf {
                // Trailing whitespace before a hard break must be encoded.
                if let last = line.last, last == " " || last == "\t" {
                    line.removeLast()
                    line += last == " " ? "=20" : "=09"
                }
                output += line + "\r\n"
                line = ""
            } else if (byte >= 33 && byte <= 126 && byte != ASCII.equals) || byte == ASCII.space || byte == ASCII.tab {
                // A line starting with "." or "From " is encoded so no transport mangles it.
                if line.isEmpty && (byte == 46 || (byte == 70 && bytes[index...].starts(with: Array("From ".utf8)))) {
                    emit(String(format: "=%02X", byte))
                } else {
                    emit(String(UnicodeScalar(byte)))
                }
            } else {
                emit(String(format: "=%02X", byte))
            }
            index += 1
        }
        if let last = line.last, last == " " || last == "\t" {
            line.removeLast()
            line += last == " " ? "=20" : "=09"
        }
        output += line
        return output
    }

    static func base64Lines(_ bytes: [UInt8]) -> String {
        let encoded = Data(bytes).base64EncodedString()
        var output = ""
        output.reserveCapacity(encoded.utf8.count + encoded.utf8.count / 76 * 2 + 2)
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            output += encoded[start..<end]
            output += "\r\n"
            start = end
        }
        return output
    }

    static func minimalHTML(from plain: String) -> String {
        var escaped = ""
        for character in normalizeLineBreaks(plain) {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "<br>\n"
            default: escaped.append(character)
            }
        }
        return "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><div>\(escaped)</div></body></html>"
    }

    static func rfc5322Date(_ date: Date) -> String {
        // UTC on purpose: the Date header then does not reveal the sender's time zone.
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = CivilDate.fromDays(days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        let monthName = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][month - 1]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(weekday), \(two(day)) \(monthName) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60)) +0000"
    }

}
