import Foundation
import Testing

@testable import HTMLSafety

/// Issue 37, "links without click tracking": each tracking parameter taken out, each redirector form
/// unwrapped (nested and double-encoded ones too), a `javascript:` destination refused, opaque click
/// trackers marked; and the CSS that loads fonts or loads on interaction blocked as trackers.
struct LinkCleaningTests {
    static func cleaned(_ url: String) -> String? { LinkCleaner.clean(url).url }

    static func sanitize(_ html: String, allowRemote: Bool = false, cleanLinks: Bool = true) -> SanitizedHTML {
        HTMLSanitizer.sanitize(html, options: SanitizeOptions(allowRemoteImages: allowRemote, cleanLinks: cleanLinks))
    }

    static func percentEncoded(_ url: String) -> String {
        url.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~")))!
    }

    static let shippedText = String(decoding: LinkTrackingRules.text, as: UTF8.self)

    @Test func theShippedListIsReadWholeAndSaysWhereItComesFrom() {
        #expect(Self.shippedText.contains("# Source: ") && Self.shippedText.contains("# Licence: "))
        let rules = LinkTrackingRules.bundled
        #expect(rules.problems.isEmpty, "\(rules.problems)")
        #expect(rules.redirectors.count >= 20 && rules.trackers.count >= 30)
    }

    // MARK: - Tracking parameters

    /// The parameters the issue names, each on its own and beside ones that stay.
    @Test(arguments: [
        "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id", "fbclid", "gclid", "dclid", "msclkid", "mc_eid",
        "mc_cid", "_hsenc", "_hsmi", "mkt_tok", "oly_enc_id", "oly_anon_id", "vero_id", "rb_clickid", "s_cid", "igshid", "yclid"
    ])
    func theIssuesParametersAreTakenOut(_ name: String) {
        #expect(Self.cleaned("https://shop.example/p?id=7&\(name)=abc&colour=red") == "https://shop.example/p?id=7&colour=red")
        #expect(Self.cleaned("https://shop.example/p?\(name)=abc") == "https://shop.example/p")
        #expect(Self.cleaned("https://shop.example/p?\(name.uppercased())=abc#top") == "https://shop.example/p#top")
    }

    /// Every `param` line of the shipped file.
    @Test func everyParameterOfTheListIsTakenOut() {
        var names: [String] = []
        for line in Self.shippedText.split(separator: "\n") where line.hasPrefix("param ") {
            let name = String(line.dropFirst(6))
            names.append(name.hasSuffix("*") ? name.dropLast() + "x" : name)
        }
        #expect(names.count >= 80)
        for name in names {
            let result = LinkCleaner.clean("https://shop.example/a/b?keep=1&\(name)=v")
            #expect(result.url == "https://shop.example/a/b?keep=1" && result.parametersRemoved == 1, "\(name): \(result)")
        }
    }

    @Test(arguments: [
        // Names that are not tracking stay, in their order and spelling.
        ("https://a.example/s?q=utm_source&ref=x&utm=1&id", "https://a.example/s?q=utm_source&ref=x&utm=1&id"),
        // An encoded name is read as a server reads it.
        ("https://a.example/?utm%5Fsource=x&b=2", "https://a.example/?b=2"),
        ("https://a.example?utm_source=x", "https://a.example"),
        ("https://a.example/p?a=1&&utm_medium=m&b=&fbclid=F#f?utm_source=kept", "https://a.example/p?a=1&&b=#f?utm_source=kept"),
        ("https://a.example/#x?fbclid=1", "https://a.example/#x?fbclid=1"),
        ("mailto:ann@example.org?subject=Hi&utm_source=x", "mailto:ann@example.org?subject=Hi&utm_source=x")
    ])
    func onlyTrackingParametersGo(_ input: String, _ expected: String) {
        #expect(Self.cleaned(input) == expected)
    }

    // MARK: - Redirectors

    @Test(arguments: [
        "https://nam12.safelinks.protection.outlook.com/?url=DEST&data=05%7C02%7Cx%40example.org&sdata=abc%3D&reserved=0",
        "https://eur03.safelinks.protection.outlook.com/?url=DEST&data=1",
        "https://www.google.com/url?hl=en&q=DEST&source=gmail&ust=1&usg=AOv",
        "https://www.google.com/url?sa=t&url=DEST&usg=x",
        "https://l.facebook.com/l.php?u=DEST&h=AT0",
        "https://slack-redir.net/link?url=DEST",
        "https://www.linkedin.com/redir/redirect?url=DEST&urlhash=abc",
        "https://www.youtube.com/redirect?event=video_description&q=DEST",
        "https://urldefense.proofpoint.com/v1/url?u=DEST&k=abc",
        "https://mailtrack.io/trace/link/0123abcd?url=DEST&userId=1&signature=2",
        // A click tracker that carries its destination in a parameter.
        "https://t.hubspotlinks.com/Ctc/AB/xyz?url=DEST"
    ])
    func queryRedirectorsAreUnwrapped(_ wrapper: String) {
        let destination = "https://www.example.com/page?a=1&b=two#part"
        let result = LinkCleaner.clean(wrapper.replacingOccurrences(of: "DEST", with: Self.percentEncoded(destination)))
        #expect(result.url == destination, "\(wrapper)")
        #expect(result.unwraps == 1 && result.host == "www.example.com" && result.trackedHost == nil)
    }

    @Test func proofpointV2ReadsItsOwnEncoding() {
        let url = "https://urldefense.proofpoint.com/v2/url?u=https-3A__www.example.com_path_to-3Fa-3D1-26b-3D2&d=DwMFaQ&c=abc&r=def&m=ghi&s=jkl&e="
        #expect(Self.cleaned(url) == "https://www.example.com/path/to?a=1&b=2")
    }

    @Test func proofpointV3PutsTheEncodedCharactersBack() {
        #expect(Self.cleaned("https://urldefense.com/v3/__https://www.example.com/path?a=1__;!!ABC!DEF$") == "https://www.example.com/path?a=1")
        // `*` is the next character of the bytes after `__;` ("@", base64url "QA").
        #expect(Self.cleaned("https://urldefense.com/v3/__https://example.com/u*x__;QA!!ABC!def$") == "https://example.com/u@x")
        // `**A` is a run of two ("ab": "YWI").
        #expect(Self.cleaned("https://urldefense.com/v3/__https://example.com/**A/z__;YWI!!ABC$") == "https://example.com/ab/z")
        // More stars than characters: not read, the link stays as it is.
        let short = "https://urldefense.com/v3/__https://example.com/***__;QA!!ABC$"
        #expect(Self.cleaned(short) == short)
    }

    @Test func amazonSESCarriesTheDestinationInItsPath() {
        let url = "https://abc123.r.us-east-1.awstrack.me/L0/https:%2F%2Fwww.example.com%2Forder%3Fid%3D5/1/0100018c-abc/xyz=351"
        #expect(Self.cleaned(url) == "https://www.example.com/order?id=5")
    }

    @Test func nestedAndDoubleEncodedWrappersAreUnwrappedToTheEnd() {
        let destination = "https://shop.example/item?id=9&utm_source=mail"
        let facebook = "https://l.facebook.com/l.php?u=" + Self.percentEncoded(destination)
        let google = "https://www.google.com/url?q=" + Self.percentEncoded(facebook)
        let safe = "https://nam02.safelinks.protection.outlook.com/?url=" + Self.percentEncoded(google) + "&data=x"
        let nested = LinkCleaner.clean(safe)
        #expect(nested.url == "https://shop.example/item?id=9" && nested.unwraps == 3 && nested.parametersRemoved == 1)
        // Encoded twice inside one wrapper (a wrapper's output wrapped by a tool that encoded it again).
        let twice = "https://slack-redir.net/link?url=" + Self.percentEncoded(Self.percentEncoded(destination))
        #expect(Self.cleaned(twice) == "https://shop.example/item?id=9")
        let proofpointInSafeLinks =
            "https://nam12.safelinks.protection.outlook.com/?url="
            + Self.percentEncoded("https://urldefense.com/v3/__https://www.example.com/x__;!!A!B$") + "&data=1"
        #expect(Self.cleaned(proofpointInSafeLinks) == "https://www.example.com/x")
    }

    @Test(arguments: [
        "https://www.google.com/url?q=javascript:alert(1)", "https://www.google.com/url?q=javascript%3Aalert(document.domain)",
        "https://slack-redir.net/link?url=JaVaScRiPt%253Aalert(1)", "https://l.facebook.com/l.php?u=data%3Atext%2Fhtml%2C%3Cscript%3E",
        "https://nam12.safelinks.protection.outlook.com/?url=" + LinkCleaningTests.percentEncoded("https://www.google.com/url?q=vbscript:msgbox(1)"),
        "https://urldefense.proofpoint.com/v2/url?u=javascript-3Aalert-281-29&d=x"
    ])
    func aDestinationWithAnotherSchemeIsRefused(_ url: String) {
        #expect(LinkCleaner.clean(url).url == nil, "\(url)")
        let result = Self.sanitize("<p><a href=\"\(url.replacingOccurrences(of: "&", with: "&amp;"))\">open</a></p>")
        #expect(result.html == "<p><a>open</a></p>", "\(result.html)")
    }

    @Test func wrappersPastTheLimitAreRefused() {
        var url = "https://www.example.com/"
        for _ in 0..<LinkCleaner.maximumUnwraps { url = "https://www.google.com/url?q=" + Self.percentEncoded(url) }
        #expect(Self.cleaned(url) == "https://www.example.com/")
        url = "https://www.google.com/url?q=" + Self.percentEncoded(url)
        #expect(Self.cleaned(url) == nil)
    }

    @Test(arguments: [
        "https://www.google.com/url?sa=t", "https://www.google.com/url?q=/search%3Fq%3Dx", "https://www.google.com/search?q=https://x.example/",
        "https://evil-l.facebook.com/l.php?u=https%3A%2F%2Fx.example%2F", "https://www.example.com/url?q=https%3A%2F%2Fx.example%2F"
    ])
    func whatIsNoRedirectorStays(_ url: String) {
        #expect(Self.cleaned(url) == url)
    }

    // MARK: - Click trackers

    @Test(arguments: [
        ("https://u48213.ct.sendgrid.net/ls/click?upn=abcdef", "u48213.ct.sendgrid.net"),
        ("https://example-news.us1.list-manage.com/track/click?u=1&id=2&e=3", "example-news.us1.list-manage.com"),
        ("https://protect-eu.mimecast.com/s/AbCdEfGh?domain=example.com", "protect-eu.mimecast.com"),
        ("https://r20.rs6.net/tn.jsp?f=001abc&c=x", "r20.rs6.net"),
        ("https://ctrk.klclick.com/l/01ABC", "ctrk.klclick.com"),
        ("https://t.hubspotlinks.com/Ctc/AB/xyz?u=7", "t.hubspotlinks.com")
    ])
    func opaqueClickTrackersAreMarked(_ url: String, _ host: String) {
        let result = LinkCleaner.clean(url)
        #expect(result.url == url && result.trackedHost == host)
    }

    @Test(arguments: [
        "https://example-news.us1.list-manage.com/unsubscribe?u=1&id=2", "https://www.mimecast.com/products/", "https://sendgrid.com/pricing",
        "https://click.example.com/anything"
    ])
    func otherPagesOfTheSameServicesAreNotMarked(_ url: String) {
        #expect(LinkCleaner.clean(url).trackedHost == nil)
    }

    // MARK: - In the sanitizer

    @Test func theSanitizerWritesTheCleanDestinationAndCountsWhatItDid() {
        let safe = "https://nam12.safelinks.protection.outlook.com/?url=" + Self.percentEncoded("https://docs.example.org/r?id=4") + "&amp;data=1"
        let html = """
            <p><a href="https://shop.example/sale?utm_source=news&amp;utm_medium=email&amp;id=3">Sale</a>
            <a href="\(safe)">Report</a>
            <a href="https://u1.ct.sendgrid.net/ls/click?upn=abc">Shop</a> <a href="https://u1.ct.sendgrid.net/ls/click?upn=def">More</a>
            <a href="https://plain.example/">Plain</a></p>
            """
        let result = Self.sanitize(html)
        #expect(
            result.html.contains(
                #"href="https://shop.example/sale?id=3" target="_blank" rel="noopener noreferrer" title="https://shop.example/sale?id=3">Sale"#))
        #expect(
            result.html.contains(
                #"href="https://docs.example.org/r?id=4" target="_blank" rel="noopener noreferrer" title="https://docs.example.org/r?id=4">Report"#))
        #expect(
            result.html.contains(
                #"href="https://u1.ct.sendgrid.net/ls/click?upn=abc" target="_blank" rel="noopener noreferrer" title="https://u1.ct.sendgrid.net/ls/click?upn=abc" data-tern-tracked-host="u1.ct.sendgrid.net">Shop"#
            ), "\(result.html)")
        #expect(!result.html.contains("utm_") && !result.html.contains("safelinks"))
        #expect(result.links == LinkCleaning(cleaned: 1, unwrapped: 1, tracked: 2, trackedHosts: ["u1.ct.sendgrid.net"]))
        #expect(result.trackersBlocked == 0, "a tracked link is no blocked tracker")
        let off = Self.sanitize(html, cleanLinks: false)
        #expect(off.html.contains("utm_source=news") && off.html.contains("safelinks") && !off.html.contains("data-tern-tracked-host"))
        #expect(off.links == LinkCleaning())
        for allow in [false, true] {
            let once = Self.sanitize(html, allowRemote: allow).html
            #expect(Self.sanitize(once, allowRemote: allow).html == once, "the output is its own fixed point")
        }
    }

    /// The host the person is shown follows the unwrapped destination: a wrapper's own host neither
    /// hides a look-alike nor raises a false alarm.
    @Test func theShownDestinationIsTheUnwrappedOne() {
        func wrapped(_ url: String) -> String {
            "https://nam12.safelinks.protection.outlook.com/?url=" + Self.percentEncoded(url) + "&amp;data=1"
        }
        let lookAlike = Self.sanitize("<a href=\"\(wrapped("https://evil.example/login"))\">https://bank.example/login</a>")
        #expect(lookAlike.suspiciousLinks == 1)
        #expect(lookAlike.html.contains(#"title="https://evil.example/login" data-tern-real-host="evil.example""#), "\(lookAlike.html)")
        let honest = Self.sanitize("<a href=\"\(wrapped("https://bank.example/login"))\">https://bank.example/login</a>")
        #expect(honest.suspiciousLinks == 0 && !honest.html.contains("tern-link-mismatch"), "\(honest.html)")
        #expect(
            Self.sanitize("<a href=\"\(wrapped("https://bank.example/login"))\">https://bank.example/login</a>", cleanLinks: false).suspiciousLinks
                == 1)
        // Unwrapped to an address: a mailto link.
        let mail = Self.sanitize("<a href=\"https://www.google.com/url?q=mailto%3Aann%40example.org\">Ann</a>")
        #expect(mail.html.contains(#"href="mailto:ann@example.org""#))
    }

    @Test func aTrackedLinkWhoseTextNamesAnotherSiteIsBothMarkedAndSuspicious() {
        let result = Self.sanitize(#"<a href="https://u9.ct.sendgrid.net/ls/click?upn=x" class="btn">https://shop.example/</a>"#)
        #expect(result.suspiciousLinks == 1 && result.links.tracked == 1)
        #expect(
            result.html.contains(
                #"data-tern-tracked-host="u9.ct.sendgrid.net" data-tern-real-host="u9.ct.sendgrid.net" class="btn tern-link-mismatch""#),
            "\(result.html)")
    }

    // MARK: - Fonts and interaction CSS (trackers even when remote images are allowed)

    @Test(arguments: [
        (#"<style>@font-face { font-family: Brand; src: url(https://fonts.example/b.woff2) format("woff2") }</style>"#, "fonts.example", "font"),
        (
            #"<style>@media screen { @font-face { font-family: B; src: local(B), url("https://fonts.example/b.woff") } }</style>"#, "fonts.example",
            "font"
        ),
        ("<style>a:hover { color: red; background: url(https://t.example/hover.png) }</style>", "t.example", "css"),
        ("<style>td:active { background-image: url('https://t.example/active.png') }</style>", "t.example", "css"),
        ("<style>p:focus-within, a:focus { background: url(https://t.example/focus.png) }</style>", "t.example", "css"),
        ("<style>:is(a:hover) span { background: url(https://t.example/nested.png) }</style>", "t.example", "css"),
        ("<style>details[open] p { background: url(https://t.example/open.png) }</style>", "t.example", "css"),
        ("<style>p::after { content: url(https://t.example/content.png) }</style>", "t.example", "css"),
        (#"<p style="content: url(https://t.example/inline.png)">x</p>"#, "t.example", "css")
    ])
    func fontsAndInteractionLoadsAreTrackersWhateverImagesAreAllowed(_ html: String, _ host: String, _ kind: String) {
        for allow in [false, true] {
            let result = Self.sanitize(html + "<p>text</p>", allowRemote: allow)
            #expect(!result.html.contains(host), "\(result.html)")
            #expect(result.trackersBlocked == 1 && result.trackerHosts == [host], "\(html) allow=\(allow)")
            #expect(result.trackerKinds == (kind == "font" ? TrackerKinds(fonts: 1) : TrackerKinds(css: 1)))
            #expect(result.remoteImagesBlocked == 0)
        }
        let kept = Self.sanitize(
            "<style>a:hover { color: red; background: url(https://t.example/h.png) }</style><a href=\"https://x.example/\">x</a>", allowRemote: true)
        #expect(kept.html.contains("a:hover"), "the rest of the rule stays: \(kept.html)")
    }

    @Test(arguments: [
        "<style>p { background: url(https://img.example/bg.png) }</style>",
        "<style>a::before { background-image: url(https://img.example/b.png) }</style>",
        "<style>@font-face { font-family: Local; src: local(Arial) }</style>",
        "<style>a:hover { color: red; background: #eee }</style>"
    ])
    func styleThatLoadsOnlyAsImagesDoIsNoTracker(_ html: String) {
        let result = Self.sanitize(html + "<p>text</p>", allowRemote: true)
        #expect(result.trackersBlocked == 0 && result.trackerKinds == TrackerKinds(), "\(html)")
        #expect(result.html.contains("img.example") == html.contains("img.example"), "\(result.html)")
    }

    @Test func pixelsAreCountedAsImages() {
        let result = Self.sanitize(#"<img src="https://mailtrack.io/trace/mail/1.png" width="1" height="1"><p>x</p>"#)
        #expect(result.trackerKinds == TrackerKinds(images: 1) && result.trackersBlocked == 1)
    }
}
