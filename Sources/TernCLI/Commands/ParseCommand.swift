import ArgumentParser
import Foundation
import MIME
import TernCore

/// `tern parse`: how a person debugs a message Tern shows oddly. Reads files (or stdin) and shows
/// the parsed headers, the part tree, the chosen bodies, attachments and every problem found.
struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse", abstract: "Parse messages (RFC 5322/MIME files, or stdin) and show what Tern reads in them.")

    @Argument(help: "Message files (.eml). Reads standard input when none is given.")
    var files: [String] = []
    @OptionGroup var output: OutputOptions

    func run() throws {
        var inputs: [(String, [UInt8])] = []
        if files.isEmpty {
            inputs.append(("-", [UInt8](FileHandle.standardInput.readDataToEndOfFile())))
        } else {
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw TernError.notFound("cannot read '\(file)'")
                }
                inputs.append((file, [UInt8](data)))
            }
        }
        let parser = MessageParser()
        let reports = inputs.map { name, bytes in ParseReport(file: name, message: parser.parse(bytes)) }
        if output.json {
            if reports.count == 1 { try printJSON(reports[0]) } else { try printJSON(reports) }
            return
        }
        for report in reports { print(report.text) }
    }
}

struct ParseReport: Encodable {
    struct Address: Encodable {
        var name: String?
        var address: String
    }

    struct Part: Encodable {
        var partId: String
        var contentType: String
        var charset: String?
        var transferEncoding: String
        var sizeBytes: Int
        var disposition: String?
        var filename: String?
        var contentId: String?
        var children: [Part]

        init(_ part: MIMEPart) {
            partId = part.partId
            contentType = part.contentType
            charset = part.charset
            transferEncoding = part.transferEncoding
            sizeBytes = part.sizeBytes
            disposition = part.disposition
            filename = part.filename
            contentId = part.contentId
            children = part.children.map(Part.init)
        }
    }

    var file: String
    var from: [Address]
    var to: [Address]
    var cc: [Address]
    var subject: String
    var date: Date?
    var messageId: String?
    var inReplyTo: [String]
    var references: [String]
    var dedupKey: String
    var structure: Part
    var bodyPlain: String?
    var bodyHTML: String?
    var bodyTruncated: Bool
    var attachments: [AttachmentInfo]
    var problems: [String]

    init(file: String, message: ParsedMessage) {
        self.file = file
        let convert = { (list: [MailboxAddress]) in list.map { Address(name: $0.name, address: $0.address) } }
        from = convert(message.from)
        to = convert(message.to)
        cc = convert(message.cc)
        subject = message.subject
        date = message.date
        messageId = message.messageId
        inReplyTo = message.inReplyTo
        references = message.references
        dedupKey = message.dedupKey
        structure = Part(message.structure)
        bodyPlain = message.bodyPlain
        bodyHTML = message.bodyHTML
        bodyTruncated = message.bodyTruncated
        attachments = message.attachments
        problems = message.problems.map(\.description)
    }

    var text: String {
        var lines: [String] = ["== \(file)"]
        func format(_ list: [Address]) -> String {
            list.map { entry in entry.name.map { "\($0) <\(entry.address)>" } ?? entry.address }.joined(separator: ", ")
        }
        lines.append("From:        \(format(from))")
        lines.append("To:          \(format(to))")
        if !cc.isEmpty { lines.append("Cc:          \(format(cc))") }
        lines.append("Subject:     \(subject)")
        lines.append("Date:        \(date.map { ISO8601DateFormatter().string(from: $0) } ?? "(none: INTERNALDATE is used)")")
        lines.append("Message-ID:  \(messageId ?? "(none)")")
        if !inReplyTo.isEmpty { lines.append("In-Reply-To: \(inReplyTo.joined(separator: " "))") }
        if !references.isEmpty { lines.append("References:  \(references.joined(separator: " "))") }
        lines.append("Parts:")
        func walk(_ part: Part, depth: Int) {
            var line = String(repeating: "  ", count: depth + 1) + "\(part.partId.isEmpty ? "-" : part.partId) \(part.contentType)"
            if let charset = part.charset { line += " charset=\(charset)" }
            line += " \(part.transferEncoding) \(part.sizeBytes) bytes"
            if let disposition = part.disposition { line += " \(disposition)" }
            if let filename = part.filename { line += " \"\(filename)\"" }
            if let contentId = part.contentId { line += " cid:\(contentId)" }
            lines.append(line)
            for child in part.children { walk(child, depth: depth + 1) }
        }
        walk(structure, depth: 0)
        lines.append("Plain body:  \(bodyPlain.map { "\($0.count) characters" } ?? "none")\(bodyTruncated ? " (message too large: truncated)" : "")")
        lines.append("HTML body:   \(bodyHTML.map { "\($0.count) characters" } ?? "none")")
        for attachment in attachments {
            lines.append("Attachment:  \(attachment.partId) \"\(attachment.filename)\" \(attachment.mimeType) ~\(attachment.sizeBytes) bytes\(attachment.isInline ? " inline" : "")")
        }
        if problems.isEmpty {
            lines.append("Problems:    none")
        } else {
            lines.append("Problems:")
            lines.append(contentsOf: problems.map { "  - \($0)" })
        }
        // Every field line is one line, whatever the file holds; the body keeps its own lines.
        lines = lines.map(TerminalText.line)
        if let bodyPlain {
            lines.append("--- plain body ---")
            lines.append(bodyPlain)
        }
        return lines.joined(separator: "\n")
    }
}
