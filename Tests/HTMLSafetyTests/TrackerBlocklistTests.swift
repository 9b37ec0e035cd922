import Foundation
import Testing

@testable import HTMLSafety

/// Issue 21 (privacy): tracking pixels that loaded with remote images allowed. Issue 37: the bundled
/// list is Tern's curated mail trackers over the hosts of permissively licensed lists (NOTICE).
struct TrackerBlocklistTests {
    static func cleanAllowingRemote(_ html: String) -> SanitizedHTML {
        HTMLSanitizer.sanitize(html, options: SanitizeOptions(allowRemoteImages: true))
    }

    /// One pixel per tracker family, as the family's own mail or pages write it.
    @Test(arguments: [
        "https://www.google-analytics.com/collect?v=1&tid=UA-1-1&cid=5&t=event&ec=email&ea=open", // Google Analytics
        "https://google-analytics.com/collect?v=1&t=event",
        "https://ssl.google-analytics.com/__utm.gif?utmac=UA-1",
        "https://ad.doubleclick.net/ddm/ad/N123.456/B789;ord=1?", // DoubleClick
        "https://www.facebook.com/tr?id=1234&ev=PageView&noscript=1", // Facebook pixel
        "https://example.us1.list-manage.com/track/open.php?u=abc&id=def&e=123", // Mailchimp
        "https://track.hubspot.com/__ptq.gif?a=1&k=14", // HubSpot
        "https://t.hubspotemail.net/e1t/o/5/abc",
        "https://click.exacttarget.com/open.aspx?ffcb10-fec", // Salesforce Marketing Cloud
        "https://cl.s7.exct.net/open.aspx?ffcb10",
        "https://u123.ct.sendgrid.net/wf/open?upn=abc", // SendGrid
        "https://email.mg.example.mailgun.org/o/abc", // Mailgun
        "https://123-ABC-456.mktoresp.com/trk?_mchId=1", // Marketo
        "https://trk.klaviyo.com/open/abc", // Klaviyo
        "https://static-tracking.klaviyo.com/onsite/js/x.gif",
        "https://www.sailthru.com/Sailthru_spacer_1x1.gif", // Sailthru
        "https://abc.emltrk.com/abc?d=user@example.org", // Litmus
        "https://t.yesware.com/t/abc/def.png", // Yesware
        "https://email.mixmax.com/api/track/v2/abc", // Mixmax
        "https://mailfoogae.appspot.com/t?sender=a&type=zerocontent&guid=1", // Streak
        "https://r.superhuman.com/abc.gif", // Superhuman
        "https://mailtrack.io/trace/mail/abc.png", // Mailtrack
        "https://go.pardot.com/l/123/abc", // Pardot
        "https://s123.t.eloqua.com/e/FooterImages/FooterImage1?elq=1", // Oracle Eloqua
        "https://pixel.app.returnpath.net/pixel.gif?r=abc", // Return Path
        "https://api.bluecore.com/api/track/open?token=abc", // Bluecore
        "https://sb.scorecardresearch.com/p?c1=2&c2=1", // comScore
        "https://example.sc.omtrdc.net/b/ss/rsid/1/H.27/s1?pe=lnk_o", // Adobe Analytics
        "https://ct.pinterest.com/v3/?tid=1&event=pagevisit", // Pinterest
        "https://bat.bing.com/action/0?ti=1", // Microsoft Advertising
        "https://dis.criteo.com/dis/usersync.aspx", // Criteo
        "https://px.ads.linkedin.com/collect/?pid=1&fmt=gif", // LinkedIn Insight
        "https://api.mixpanel.com/track/?data=abc&ip=1&img=1", // Mixpanel
        "https://tags.bluekai.com/site/1?limit=1", // Oracle BlueKai
        "https://pixel.mathtag.com/event/img?mt_id=1" // MediaMath
    ])
    func aPixelOfEveryMajorFamilyIsBlockedWithRemoteImagesAllowed(_ url: String) {
        let result = Self.cleanAllowingRemote("<p>Hi</p><img src=\"\(url)\" width=\"600\" height=\"300\" alt=\"\">")
        #expect(result.trackersBlocked == 1, "\(url)")
        #expect(!result.html.contains("<img"), "\(url): \(result.html)")
    }

    @Test func ordinaryImagesStillLoad() {
        for url in [
            "https://mcusercontent.com/abc/images/hero.png", "https://cdn.example.org/newsletter/header.jpg",
            "https://images.ctfassets.net/abc/logo.png", "https://example.us1.list-manage.com/images/logo.png",
            "https://www.facebook.com/images/fb_icon_325x325.png"
        ] {
            let result = Self.cleanAllowingRemote("<img src=\"\(url)\" width=\"600\" height=\"300\" alt=\"\">")
            #expect(result.trackersBlocked == 0, "\(url)")
            #expect(result.html.contains("<img"), "\(url)")
        }
    }

    @Test func bundledListHasBothParts() {
        let list = TrackerBlocklist.bundled
        #expect(list.entries.count >= 80)
        #expect(list.hostList.count > 300)
        // From MailTrackerBlocker's rules (a host with a path) and NextDNS's list (a host).
        #expect(list.match(host: "data-cdn.theatlantic.com", path: "/email.gif?u=1")?.service == TrackerBlocklist.hostListService)
        #expect(list.match(host: "data-cdn.theatlantic.com", path: "/images/logo.png") == nil)
        #expect(list.match(host: "x.eulerian.net", path: "/")?.service == TrackerBlocklist.hostListService)
        // The curated entry comes first where both name a host.
        #expect(list.match(host: "t.yesware.com", path: "/t/1")?.service == "Yesware")
    }

    // MARK: - The generated list's matcher

    static let sampleList = """
        # comment
        tracker.example
        @images.tracker.example
        pixels.example/open/
        pixels.example/o.gif
        a.b.deep.example
        """

    @Test func hostListMatchesHostsDomainsPathsAndExceptions() {
        let list = TrackerBlocklist(entries: [], hostListText: Self.sampleList)
        #expect(list.hostList.count == 5)
        for (url, blocked) in [
            ("https://tracker.example/x.gif", true), ("https://sub.tracker.example/x.gif", true),
            ("https://nottracker.example/x.gif", false), ("https://tracker.example.org/x.gif", false),
            ("https://images.tracker.example/logo.png", false), ("https://cdn.images.tracker.example/logo.png", false),
            ("https://pixels.example/open/1", true), ("https://pixels.example/OPEN/1", true), ("https://x.pixels.example/o.gif?u=1", true),
            ("https://pixels.example/logo.png", false), ("https://pixels.example/", false),
            ("https://a.b.deep.example/", true), ("https://b.deep.example/", false), ("https://deep.example/", false),
            ("https://example/", false)
        ] {
            #expect(list.matches(url: url) == blocked, "\(url)")
        }
    }

    @Test func hostListSortsLinesWrittenOutOfOrder() {
        let shuffled = Self.sampleList.split(separator: "\n").reversed().joined(separator: "\n")
        let list = TrackerBlocklist(entries: [], hostListText: shuffled)
        #expect(list.matches(url: "https://sub.tracker.example/x.gif"))
        #expect(!list.matches(url: "https://images.tracker.example/x.gif"))
        #expect(list.matches(url: "https://pixels.example/o.gif"))
    }

    /// Every line of the bundled file is found by the search (the file is in the search's order),
    /// on a host below it and not on a name that only ends like it.
    @Test func everyBundledLineIsFound() throws {
        let text = String(decoding: TrackerBlocklist.hostListText, as: UTF8.self)
        // Issue 37: the header names each upstream list with its revision and licence.
        #expect(text.contains("MailTrackerBlocker, https://github.com/apparition47/MailTrackerBlocker, commit "))
        #expect(text.contains("BSD-3-Clause"))
        #expect(text.contains("NextDNS CNAME Cloaking Blocklist, https://github.com/nextdns/cname-cloaking-blocklist, commit "))
        #expect(text.contains("MIT"))
        #expect(!text.lowercased().contains("easyprivacy"))
        let list = TrackerBlocklist.bundled.hostList
        var lines = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            lines += 1
            let isException = line.hasPrefix("@")
            let entry = isException ? line.dropFirst() : line[...]
            let host = String(entry.prefix { $0 != "/" })
            let path = Array((entry.dropFirst(host.count).isEmpty ? "/" : entry.dropFirst(host.count) + "pixel.gif").utf8)
            var below = "x-1." + host
            let found = below.withUTF8 { bytes in list.match(host: bytes, path: { path }) }
            #expect((found == nil) == isException, "\(line)")
            var lookalike = "x" + host
            let other = lookalike.withUTF8 { bytes in list.match(host: bytes, path: { path }) }
            #expect(other?.host != host, "\(line) matched x\(host)")
        }
        #expect(lines == list.count)
    }

    // MARK: - Path rules read the path the server gets

    @Test(arguments: [
        "https://example.us1.list-manage.com/track/%6Fpen.php?u=1",
        "https://example.us1.list-manage.com/images/../track/open.php?u=1",
        "https://example.us1.list-manage.com/images/%2e%2E/track/open.php?u=1",
        "https://example.us1.list-manage.com/./track/open.php?u=1",
        "https:\\\\example.us1.list-manage.com\\track\\open.php?u=1",
        "https://example.us1.list-manage.com/TRACK/OPEN.php?u=1"
    ])
    func pathRulesSeeThePathTheServerReads(_ url: String) {
        let result = Self.cleanAllowingRemote("<img src=\"\(url)\" width=\"600\" height=\"300\">")
        #expect(result.trackersBlocked == 1, "\(url)")
    }
}
