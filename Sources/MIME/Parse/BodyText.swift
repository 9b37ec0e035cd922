/// FR-SYNC-01 step 7: the plain and HTML bodies of a message from the body parts fetched alone
/// (`BODY.PEEK[section]`), decoded exactly as `MessageParser` decodes them inside a whole message:
/// transfer encoding, charset, format=flowed, the 10 MB limit.
public struct BodyText: Sendable, Hashable {
    public var plain: String?
    public var html: String?
    public var truncated: Bool
    /// A first line for lists (FR-SYNC-06 step 5), from the plain text.
    public var snippet: String?

    /// `sections` maps part ids of `plan` to their raw (still transfer-encoded) bytes.
    public init(structure: MIMEPart, plan: BodyPlan, sections: [String: [UInt8]], limit: Int = MessageParser().maxBodyBytes) {
        let parts = MIMEPart.byId(structure)
        var truncated = false
        var budget = limit
        func text(_ ids: [String]) -> String? {
            var pieces: [String] = []
            for id in ids {
                guard let part = parts[id], let raw = sections[id], !truncated else { continue }
                pieces.append(Self.decode(raw[...], part: part, limit: &budget, truncated: &truncated).text)
            }
            return pieces.isEmpty ? nil : pieces.joined(separator: "\n")
        }
        plain = text(plan.plainPartIds)
        html = text(plan.htmlPartIds)
        self.truncated = truncated
        snippet = plain.map { ParsedMessage.snippet(from: $0) } ?? (html == nil ? nil : "")
    }

    /// One text part's bytes as text, spending at most `limit` decoded bytes.
    public static func decode(_ raw: ArraySlice<UInt8>, part: MIMEPart, limit: inout Int, truncated: inout Bool)
        -> (text: String, charsetProblem: String?)
    {
        var decoded = TransferDecoding.decode(raw, encoding: part.transferEncoding)
        if decoded.count > limit {
            decoded = Array(decoded.prefix(max(0, limit)))
            truncated = true
        }
        limit -= decoded.count
        let result = CharsetDecoder.decode(MessageParser.State.normalizeLineBreaks(decoded), charset: part.charset)
        var text = result.text
        if part.contentType == "text/plain", part.parameters["format"]?.lowercasedASCII == "flowed" {
            text = FormatFlowed.decode(text, delSp: part.parameters["delsp"]?.lowercasedASCII == "yes")
        }
        return (text, result.problem)
    }
}
