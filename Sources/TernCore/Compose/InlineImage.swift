import Foundation

/// CO01-16 (issue 34): an image pasted or dropped into the composer's text. It is one of the draft's
/// files with a Content-ID (`ComposedAttachment.contentId`), shown where the text holds its
/// `![name](cid:…)` (`MarkdownSubset.imageReference`), and sent as a part of the HTML alternative's
/// `multipart/related` (RFC 2387) with `Content-Disposition: inline`.
public enum InlineImage {
    /// The types mail clients show inline; any other file stays an ordinary attachment.
    public static let mediaTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    /// The inline image type of `bytes`, from their magic number (the browser's declared type is
    /// not trusted), or nil when they are not one of `mediaTypes`.
    public static func mediaType(of bytes: [UInt8], declared: String) -> String? {
        let sniffed = MIMESniffer.sniff(Array(bytes.prefix(16)), declared: declared)
        return mediaTypes.contains(sniffed) ? sniffed : nil
    }

    /// RFC 2392 asks a Content-ID to be unique in the world, in msg-id syntax: 128 random bits on
    /// the left, and on the right a domain that can be no one's (RFC 6761 `.invalid`), since the
    /// image is named before the message knows its sender.
    public static func newContentId() -> String {
        "image." + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") + "@tern.invalid"
    }
}
