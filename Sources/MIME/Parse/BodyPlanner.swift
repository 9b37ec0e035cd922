/// Chooses, from the part tree alone, which parts are the plain and HTML bodies and which are
/// attachments (FR-SYNC-01 steps 7-8). The same tree comes from a parsed message or from IMAP
/// BODYSTRUCTURE, so header sync knows what to fetch later without downloading anything.
public enum BodyPlanner {
    public static func plan(_ root: MIMEPart) -> BodyPlan {
        var plan = BodyPlan(plainPartIds: [], htmlPartIds: [], attachments: [])
        visit(root, into: &plan, insideRelated: false)
        return plan
    }

    static func visit(_ part: MIMEPart, into plan: inout BodyPlan, insideRelated: Bool) {
        if part.isMultipart {
            if part.contentType == "multipart/alternative" {
                // The richest version of each kind: the last plain and the last HTML alternative.
                var plain: [String] = []
                var html: [String] = []
                for child in part.children {
                    var sub = BodyPlan(plainPartIds: [], htmlPartIds: [], attachments: [])
                    visit(child, into: &sub, insideRelated: insideRelated)
                    if !sub.plainPartIds.isEmpty { plain = sub.plainPartIds }
                    if !sub.htmlPartIds.isEmpty { html = sub.htmlPartIds }
                    plan.attachments.append(contentsOf: sub.attachments)
                }
                plan.plainPartIds.append(contentsOf: plain)
                plan.htmlPartIds.append(contentsOf: html)
            } else {
                let related = part.contentType == "multipart/related"
                for child in part.children { visit(child, into: &plan, insideRelated: insideRelated || related) }
            }
            return
        }
        let isAttachmentDisposition = part.disposition == "attachment"
        let isTextBody =
            (part.contentType == "text/plain" || part.contentType == "text/html")
            && !isAttachmentDisposition && part.filename == nil
        if isTextBody {
            if part.contentType == "text/plain" { plan.plainPartIds.append(part.partId) } else { plan.htmlPartIds.append(part.partId) }
            return
        }
        let isInline =
            !isAttachmentDisposition && (part.disposition == "inline" || (insideRelated && part.contentId != nil))
            && part.mediaType == "image"
        plan.attachments.append(
            AttachmentInfo(
                partId: part.partId, filename: part.filename ?? defaultFilename(for: part), mimeType: part.contentType,
                sizeBytes: estimatedDecodedSize(part), contentId: part.contentId, isInline: isInline,
                transferEncoding: part.transferEncoding))
    }

    /// Sizes as people see them: a base64 part is about three quarters of what travels.
    static func estimatedDecodedSize(_ part: MIMEPart) -> Int {
        estimatedDecodedSize(encodedBytes: part.sizeBytes, transferEncoding: part.transferEncoding)
    }

    /// The same estimate for bytes still encoded (an attachment's slices as they arrive), so the
    /// progress of a download and the size shown before it agree.
    public static func estimatedDecodedSize(encodedBytes: Int, transferEncoding: String) -> Int {
        transferEncoding == "base64" ? encodedBytes * 3 / 4 * 76 / 78 : encodedBytes
    }

    static func defaultFilename(for part: MIMEPart) -> String {
        let extensions = [
            "text/calendar": "ics", "text/plain": "txt", "text/html": "html", "message/rfc822": "eml",
            "application/pdf": "pdf", "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif",
            "application/ms-tnef": "dat", "application/pgp-signature": "asc", "text/vcard": "vcf", "text/x-vcard": "vcf"
        ]
        if part.contentType == "application/ms-tnef" { return "winmail.dat" }
        let base = part.mediaType == "image" ? "image" : part.isMessage ? "message" : "attachment"
        return "\(base)-\(part.partId).\(extensions[part.contentType] ?? "bin")"
    }
}
