import Foundation

/// A message body made safe to show (FR-ED-04): front ends never receive the raw HTML.
public struct RenderedBody: Sendable, Hashable, Codable {
    /// The sanitized HTML for a web view (a plain-text body rendered as HTML, line breaks kept and
    /// `>` quotes folded); nil when there is nothing to show as HTML.
    public var html: String?
    /// The same content as text, for terminals: quoted history marked with `>`.
    public var text: String
    public var hasQuotedText: Bool
    public var trackersBlocked: Int
    public var trackerHosts: [String]
    /// Remote images left out (their placeholders say so); 0 when they were allowed.
    public var remoteImagesBlocked: Int
    /// Remote images were allowed for this message (the user's choice, or a trusted sender whose
    /// From the provider did not contradict: issue 32).
    public var remoteImagesLoaded: Bool
    /// The sender is a trusted sender (FR-ED-04 "Always load remote images"), whether or not that
    /// loaded the images (`ConversationMessage.senderAuthentication` says).
    public var senderTrusted: Bool
    /// Links whose text names another destination (the front end marks them).
    public var suspiciousLinks: Int
    /// The HTML could not be shown (it sanitized to nothing): this is the plain-text body instead.
    public var fellBackToPlainText: Bool
    /// Issue 37: trackers by kind, and what link cleaning did.
    public var privacy: BodyPrivacy

    public init(
        html: String?, text: String, hasQuotedText: Bool, trackersBlocked: Int, trackerHosts: [String], remoteImagesBlocked: Int,
        remoteImagesLoaded: Bool, senderTrusted: Bool, suspiciousLinks: Int, fellBackToPlainText: Bool, privacy: BodyPrivacy = BodyPrivacy()
    ) {
        self.html = html
        self.text = text
        self.hasQuotedText = hasQuotedText
        self.trackersBlocked = trackersBlocked
        self.trackerHosts = trackerHosts
        self.remoteImagesBlocked = remoteImagesBlocked
        self.remoteImagesLoaded = remoteImagesLoaded
        self.senderTrusted = senderTrusted
        self.suspiciousLinks = suspiciousLinks
        self.fellBackToPlainText = fellBackToPlainText
        self.privacy = privacy
    }
}

/// Issue 37: what the sanitizer found in a body that would have told the sender about the reader:
/// trackers blocked by kind (their sum is `trackersBlocked`), and links cleaned of tracking
/// parameters, unwrapped from redirectors, or going through an opaque click tracker first.
public struct BodyPrivacy: Sendable, Hashable, Codable {
    public var imageTrackers: Int
    public var cssTrackers: Int
    public var fontTrackers: Int
    public var linksCleaned: Int
    public var linksUnwrapped: Int
    public var linksTracked: Int
    /// The click trackers of `linksTracked`, sorted.
    public var trackedLinkHosts: [String]
    /// Remote loads that are not trackers, per host (most first, then by name): what the message
    /// would contact if allowed, or did when remote images were allowed.
    public var remoteHosts: [HostCount]

    public init(
        imageTrackers: Int = 0, cssTrackers: Int = 0, fontTrackers: Int = 0, linksCleaned: Int = 0, linksUnwrapped: Int = 0,
        linksTracked: Int = 0, trackedLinkHosts: [String] = [], remoteHosts: [HostCount] = []
    ) {
        self.remoteHosts = remoteHosts
        self.imageTrackers = imageTrackers
        self.cssTrackers = cssTrackers
        self.fontTrackers = fontTrackers
        self.linksCleaned = linksCleaned
        self.linksUnwrapped = linksUnwrapped
        self.linksTracked = linksTracked
        self.trackedLinkHosts = trackedLinkHosts
    }
}

/// A host and how many loads of a message would go to it (issue 37's privacy report).
public struct HostCount: Sendable, Hashable, Codable {
    public var host: String
    public var count: Int

    public init(host: String, count: Int) {
        self.host = host
        self.count = count
    }

    /// Most loads first, then by name.
    public static func sorted(_ counts: [String: Int]) -> [HostCount] {
        counts.map { HostCount(host: $0.key, count: $0.value) }.sorted { ($1.count, $0.host) < ($0.count, $1.host) }
    }
}

/// What the HTML safety module does for the reading use cases (implemented over `HTMLSafety` by the
/// composition root, so the core needs no HTML parser).
public protocol BodySanitizing: Sendable {
    func sanitize(html: String, allowRemoteImages: Bool) -> SanitizedBody
    /// A plain-text body as safe HTML: escaped, line breaks kept, links clickable, quotes folded.
    func renderPlainText(_ text: String) -> SanitizedBody
    /// The text a reader sees in sanitized HTML, quoted history marked with `>`.
    func readableText(fromSanitizedHTML html: String) -> String
}

extension BodySanitizing {
    /// An HTML body's text as a reader sees it (blockquotes marked with `>`): what a reply quotes and
    /// what Assist reads.
    public func readableText(ofHTML html: String) -> String {
        readableText(fromSanitizedHTML: sanitize(html: html, allowRemoteImages: false).html)
    }
}

/// One sanitizer run's result.
public struct SanitizedBody: Sendable, Hashable {
    public var html: String
    public var trackersBlocked: Int
    public var trackerHosts: [String]
    public var remoteImagesBlocked: Int
    public var hasQuotedText: Bool
    public var sanitizedToNothing: Bool
    public var suspiciousLinks: Int
    public var privacy: BodyPrivacy

    public init(
        html: String, trackersBlocked: Int, trackerHosts: [String], remoteImagesBlocked: Int, hasQuotedText: Bool,
        sanitizedToNothing: Bool, suspiciousLinks: Int, privacy: BodyPrivacy = BodyPrivacy()
    ) {
        self.html = html
        self.trackersBlocked = trackersBlocked
        self.trackerHosts = trackerHosts
        self.remoteImagesBlocked = remoteImagesBlocked
        self.hasQuotedText = hasQuotedText
        self.sanitizedToNothing = sanitizedToNothing
        self.suspiciousLinks = suspiciousLinks
        self.privacy = privacy
    }
}

/// FR-ED-04: a message's body for display. Remote images load only when the user allowed them for
/// this message or the sender is trusted and not shown to be someone else (issue 32:
/// `SenderAuthentication.letsTrustLoadImages`); trackers are stripped either way (E-06, E-12); an HTML
/// body that sanitizes to nothing falls back to the plain body.
public struct RenderMessageUseCase: Sendable {
    let sanitizer: any BodySanitizing
    let trustedSenders: any TrustedSenderStore

    public init(sanitizer: any BodySanitizing, trustedSenders: any TrustedSenderStore) {
        self.sanitizer = sanitizer
        self.trustedSenders = trustedSenders
    }

    /// `loadRemoteImages`: the user's "Load remote images" for this message.
    public func callAsFunction(_ message: ThreadMessage, loadRemoteImages: Bool = false) async throws -> RenderedBody? {
        let trusted = try await trustedSenders.isTrusted(message.from.address)
        return render(message, loadRemoteImages: loadRemoteImages, senderTrusted: trusted)
    }

    /// Without a store read: the conversation use case asks the trusted senders once per page.
    func render(_ message: ThreadMessage, loadRemoteImages: Bool, senderTrusted: Bool) -> RenderedBody? {
        let allowRemote = loadRemoteImages || (senderTrusted && message.senderAuthentication.letsTrustLoadImages)
        if let html = message.bodyHTML, !html.isEmpty {
            let cleaned = sanitizer.sanitize(html: html, allowRemoteImages: allowRemote)
            if !cleaned.sanitizedToNothing {
                return RenderedBody(
                    html: cleaned.html, text: sanitizer.readableText(fromSanitizedHTML: cleaned.html), hasQuotedText: cleaned.hasQuotedText,
                    trackersBlocked: cleaned.trackersBlocked, trackerHosts: cleaned.trackerHosts,
                    remoteImagesBlocked: allowRemote ? 0 : cleaned.remoteImagesBlocked, remoteImagesLoaded: allowRemote,
                    senderTrusted: senderTrusted, suspiciousLinks: cleaned.suspiciousLinks, fellBackToPlainText: false,
                    privacy: cleaned.privacy)
            }
            return plain(message.bodyPlain ?? "", senderTrusted: senderTrusted, fellBack: true)
        }
        guard let plain = message.bodyPlain else { return nil }
        return self.plain(plain, senderTrusted: senderTrusted, fellBack: false)
    }

    private func plain(_ text: String, senderTrusted: Bool, fellBack: Bool) -> RenderedBody {
        let rendered = sanitizer.renderPlainText(text)
        return RenderedBody(
            html: rendered.html, text: text, hasQuotedText: rendered.hasQuotedText, trackersBlocked: 0, trackerHosts: [],
            remoteImagesBlocked: 0, remoteImagesLoaded: false, senderTrusted: senderTrusted, suspiciousLinks: 0,
            fellBackToPlainText: fellBack)
    }
}
