import Foundation
import MIME

/// A message as the in-memory IMAP server keeps it: its bytes cut into what `UID FETCH` hands out
/// (the header, each part by its IMAP section number, the whole message) and its BODYSTRUCTURE.
/// Built from a few fields, so a test says what it needs and nothing else.
public struct InMemoryMessage: Sendable, Hashable {
    public var header: [UInt8]
    /// By IMAP section: `""` the whole message, `"TEXT"` the body, `"1"`, `"2"` the parts.
    public var sections: [String: [UInt8]]
    public var structure: MIMEPart
    public var internalDate: Date
    public var flags: [String]

    public var raw: [UInt8] { sections[""] ?? header }
    public var messageId: String? {
        let text = String(decoding: header, as: UTF8.self)
        return text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("message-id:") }
            .map { $0.dropFirst("message-id:".count).trimmingCharacters(in: .whitespaces) }
    }

    public init(header: [UInt8], sections: [String: [UInt8]], structure: MIMEPart, internalDate: Date, flags: [String] = []) {
        self.header = header
        self.sections = sections
        self.structure = structure
        self.internalDate = internalDate
        self.flags = flags
    }

    /// A `text/plain` message.
    public static func text(
        subject: String, body: String = "Hello.", from: String = "ann@tern.test", to: String = "bob@tern.test",
        messageId: String? = nil, inReplyTo: String? = nil, date: Date = Date(), flags: [String] = []
    ) -> InMemoryMessage {
        let id = messageId ?? "<\(UUID().uuidString.lowercased())@tern.test>"
        let header = headerBytes(
            subject: subject, from: from, to: to, messageId: id, inReplyTo: inReplyTo, date: date,
            contentType: "text/plain; charset=utf-8")
        let text = Array(body.utf8)
        let structure = MIMEPart(partId: "1", contentType: "text/plain", parameters: ["charset": "utf-8"], sizeBytes: text.count)
        return InMemoryMessage(
            header: header, sections: ["": header + text, "TEXT": text, "1": text], structure: structure,
            internalDate: date, flags: flags)
    }

    /// A `multipart/mixed` message: a text part (section 1) and one attachment (section 2), base64.
    public static func withAttachment(
        subject: String, body: String = "See attached.", filename: String, content: [UInt8],
        mimeType: String = "application/octet-stream", from: String = "ann@tern.test",
        messageId: String? = nil, date: Date = Date()
    ) -> InMemoryMessage {
        let id = messageId ?? "<\(UUID().uuidString.lowercased())@tern.test>"
        let boundary = "tern-boundary"
        let header = headerBytes(
            subject: subject, from: from, to: "bob@tern.test", messageId: id, inReplyTo: nil, date: date,
            contentType: "multipart/mixed; boundary=\"\(boundary)\"")
        let text = Array(body.utf8)
        let encoded = Array(
            Data(content).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]).utf8)
        let mimeBody =
            Array("--\(boundary)\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n".utf8) + text
            + Array(
                "\r\n--\(boundary)\r\nContent-Type: \(mimeType)\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"\(filename)\"\r\n\r\n"
                    .utf8)
            + encoded + Array("\r\n--\(boundary)--\r\n".utf8)
        let structure = MIMEPart(
            partId: "", contentType: "multipart/mixed", parameters: ["boundary": boundary],
            children: [
                MIMEPart(partId: "1", contentType: "text/plain", parameters: ["charset": "utf-8"], sizeBytes: text.count),
                MIMEPart(
                    partId: "2", contentType: mimeType, transferEncoding: "base64", sizeBytes: encoded.count, disposition: "attachment",
                    dispositionParameters: ["filename": filename])
            ])
        return InMemoryMessage(
            header: header, sections: ["": header + mimeBody, "TEXT": mimeBody, "1": text, "2": encoded],
            structure: structure, internalDate: date)
    }

    static func headerBytes(
        subject: String, from: String, to: String, messageId: String, inReplyTo: String?, date: Date,
        contentType: String
    ) -> [UInt8] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        var lines = ["From: \(from)", "To: \(to)", "Subject: \(subject)", "Date: \(formatter.string(from: date))", "Message-ID: \(messageId)"]
        if let inReplyTo { lines += ["In-Reply-To: \(inReplyTo)", "References: \(inReplyTo)"] }
        lines += ["MIME-Version: 1.0", "Content-Type: \(contentType)"]
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}
