import FileNameSafety
import Foundation

/// A body part of a message: the shape shared by parsed messages and by IMAP BODYSTRUCTURE, so
/// that body selection and attachment listing work the same from either (FR-SYNC-01 steps 7-8).
public struct MIMEPart: Sendable, Hashable, Codable {
    /// The IMAP section number (`1`, `2.1`); what `BODY.PEEK[section]` fetches.
    public var partId: String
    /// Lowercased `type/subtype`.
    public var contentType: String
    /// Content-Type parameters, lowercased names (charset, boundary, name, format, delsp…).
    public var parameters: [String: String]
    public var contentId: String?
    public var contentDescription: String?
    /// Lowercased Content-Transfer-Encoding (`7bit` when absent).
    public var transferEncoding: String
    /// Size of the part's body as transmitted (encoded), in bytes.
    public var sizeBytes: Int
    /// Lowercased disposition (`inline`, `attachment`) when present.
    public var disposition: String?
    public var dispositionParameters: [String: String]
    public var children: [MIMEPart]

    public init(
        partId: String, contentType: String, parameters: [String: String] = [:], contentId: String? = nil,
        contentDescription: String? = nil, transferEncoding: String = "7bit", sizeBytes: Int = 0,
        disposition: String? = nil, dispositionParameters: [String: String] = [:], children: [MIMEPart] = []
    ) {
        self.partId = partId
        self.contentType = contentType
        self.parameters = parameters
        self.contentId = contentId
        self.contentDescription = contentDescription
        self.transferEncoding = transferEncoding
        self.sizeBytes = sizeBytes
        self.disposition = disposition
        self.dispositionParameters = dispositionParameters
        self.children = children
    }

    public var mediaType: Substring { contentType.split(separator: "/").first ?? "" }
    public var isMultipart: Bool { contentType.hasPrefix("multipart/") }
    public var isMessage: Bool { contentType == "message/rfc822" || contentType == "message/global" }
    public var charset: String? { parameters["charset"] }

    /// The file name from Content-Disposition, else the obsolete Content-Type `name`.
    public var filename: String? {
        let name = dispositionParameters["filename"] ?? parameters["name"]
        guard let name, !name.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return Self.sanitizedFilename(name)
    }

    /// A stranger's file name made safe to show and to save (`AttachmentFilename`).
    static func sanitizedFilename(_ name: String) -> String {
        AttachmentFilename.sanitized(name)
    }

    /// Every part in document order.
    public func flattened() -> [MIMEPart] {
        var result: [MIMEPart] = []
        var pending = [self]
        while let part = pending.popLast() {
            result.append(part)
            pending.append(contentsOf: part.children.reversed())
        }
        return result
    }

    /// The parts of a tree by id; where ids repeat (a message/rfc822 part and the multipart it
    /// encloses), the first in document order, as IMAP numbers them.
    static func byId(_ root: MIMEPart) -> [String: MIMEPart] {
        Dictionary(root.flattened().map { ($0.partId, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// What a reader needs to know about one attachment or inline part.
public struct AttachmentInfo: Sendable, Hashable, Codable {
    public var partId: String
    public var filename: String
    public var mimeType: String
    /// Encoded size from the structure; decoded size once the content is known.
    public var sizeBytes: Int
    public var contentId: String?
    public var isInline: Bool
    public var transferEncoding: String
}

/// Which parts hold the bodies and which are attachments: decided from the part tree alone, so
/// header sync knows it from BODYSTRUCTURE and fetches only those parts later (FR-SYNC-01 step 7).
public struct BodyPlan: Sendable, Hashable, Codable {
    public var plainPartIds: [String]
    public var htmlPartIds: [String]
    public var attachments: [AttachmentInfo]
}

/// Something a parser found wrong with a message, kept so `tern parse` can show it.
public struct ParseProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Kind: String, Sendable, Codable {
        case malformedHeader, malformedAddress, malformedDate, missingHeader, charset, encoding, multipart, limit
    }

    public var kind: Kind
    public var partId: String
    public var detail: String

    public init(_ kind: Kind, partId: String, _ detail: String) {
        self.kind = kind
        self.partId = partId
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue) [\(partId.isEmpty ? "message" : partId)]: \(detail)" }
}
