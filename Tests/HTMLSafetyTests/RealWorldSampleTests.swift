import Foundation
import Testing

@testable import HTMLSafety

/// Real-world-shaped messages (Gmail, Outlook, Apple Mail, a Mailchimp newsletter, a SendGrid
/// receipt): trackers counted with their hosts, quotes folded, look-alike links marked.
struct RealWorldSampleTests {
    static func sample(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Samples/\(name).html")
        return [UInt8](try Data(contentsOf: url))
    }

    @Test func gmailReply() throws {
        let result = HTMLSanitizer.sanitize(try Self.sample("gmail-reply"))
        #expect(result.trackersBlocked == 1)
        #expect(result.trackerHosts == ["mailtrack.io"])
        #expect(result.hasQuotedText)
        #expect(result.html.hasPrefix("<div dir=\"ltr\">Sounds good, see you Thursday."))
        #expect(result.html.components(separatedBy: "<details").count == 2, "one fold for the whole quoted history")
        #expect(result.suspiciousLinks == 0)
    }

    @Test func outlookReply() throws {
        let result = HTMLSanitizer.sanitize(try Self.sample("outlook-reply"))
        #expect(result.trackersBlocked == 1)
        #expect(result.trackerHosts == ["sdr.salesloft.com"])
        #expect(result.hasQuotedText)
        #expect(result.html.contains("Approved. Please go ahead.</div>\n<details class=\"tern-quote\">"))
        #expect(result.suspiciousLinks == 1, "the portal link's text names another host")
        #expect(result.html.contains("data-tern-real-host=\"contoso-portal.example\""))
    }

    @Test func appleMailReply() throws {
        let result = HTMLSanitizer.sanitize(try Self.sample("apple-mail-reply"))
        #expect(result.trackersBlocked == 0)
        #expect(result.hasQuotedText)
        #expect(result.html.contains("Inline image not available"))
        #expect(result.html.hasPrefix("Thanks, that works for me."))
    }

    @Test func mailchimpNewsletter() throws {
        let blocked = HTMLSanitizer.sanitize(try Self.sample("mailchimp-newsletter"))
        // The pixel, and the brand font's `@font-face` (issue 37: fonts are trackers, blocked always).
        #expect(blocked.trackersBlocked == 2)
        #expect(blocked.trackerKinds == TrackerKinds(images: 1, fonts: 1))
        #expect(blocked.trackerHosts == ["cdn.example-news.com", "example-news.us1.list-manage.com"])
        #expect(blocked.remoteImagesBlocked == 2, "the header image and the background image")
        #expect(!blocked.html.contains("mcusercontent.com"))
        #expect(!blocked.html.contains("@import") && !blocked.html.contains("@font-face"))
        #expect(blocked.suspiciousLinks == 1, "the text shows example-news.com, the link goes to list-manage.com")
        let allowed = HTMLSanitizer.sanitize(try Self.sample("mailchimp-newsletter"), options: SanitizeOptions(allowRemoteImages: true))
        #expect(allowed.trackersBlocked == 2)
        #expect(allowed.html.contains("src=\"https://mcusercontent.com/abc/images/header.png\""))
        #expect(!allowed.html.contains("track/open.php"))
    }

    @Test func sendgridReceipt() throws {
        let result = HTMLSanitizer.sanitize(try Self.sample("sendgrid-receipt"), options: SanitizeOptions(allowRemoteImages: true))
        #expect(result.trackersBlocked == 2)
        #expect(result.trackerHosts == ["shop.example.com", "u48213.ct.sendgrid.net"])
        #expect(!result.html.contains("position: absolute"))
        #expect(result.html.contains("background-color: #1a73e8"))
        #expect(result.suspiciousLinks == 1)
    }
}
