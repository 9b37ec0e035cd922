import HTMLSafety
import TernCore

/// The reading use cases' `BodySanitizing` on the HTMLSafety module (FR-ED-04).
public struct HTMLSafetyBodySanitizer: BodySanitizing {
    public init() {}

    public func sanitize(html: String, allowRemoteImages: Bool) -> SanitizedBody {
        SanitizedBody(HTMLSanitizer.sanitize(html, options: SanitizeOptions(allowRemoteImages: allowRemoteImages)))
    }

    public func renderPlainText(_ text: String) -> SanitizedBody {
        SanitizedBody(PlainTextRenderer.render(text))
    }

    public func readableText(fromSanitizedHTML html: String) -> String {
        HTMLTextExtractor.text(fromHTML: html)
    }
}

extension SanitizedBody {
    init(_ result: SanitizedHTML) {
        self.init(
            html: result.html, trackersBlocked: result.trackersBlocked, trackerHosts: result.trackerHosts,
            remoteImagesBlocked: result.remoteImagesBlocked, hasQuotedText: result.hasQuotedText,
            sanitizedToNothing: result.fallbackToPlainText, suspiciousLinks: result.suspiciousLinks,
            privacy: BodyPrivacy(
                imageTrackers: result.trackerKinds.images, cssTrackers: result.trackerKinds.css, fontTrackers: result.trackerKinds.fonts,
                linksCleaned: result.links.cleaned, linksUnwrapped: result.links.unwrapped, linksTracked: result.links.tracked,
                trackedLinkHosts: result.links.trackedHosts, remoteHosts: HostCount.sorted(result.remoteHostCounts)))
    }
}
