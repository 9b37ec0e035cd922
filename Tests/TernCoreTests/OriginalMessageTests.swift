import Foundation
import Testing

@testable import TernCore

/// Issue 36: an original's path through servers, and a folder as mboxrd.
@Suite struct OriginalMessageTests {
    @Test func receivedFieldsAreLaidOutOldestFirstWithDelays() throws {
        let fields = [
            HeaderLine(
                name: "Received",
                value: "from mx.example.org (mx.example.org [192.0.2.1]) (using TLSv1.3 with cipher X) by mail.tern.test (Postfix) "
                    + "with ESMTPS id 4AB for <bob@tern.test>; Tue, 3 Mar 2026 10:00:05 +0000"),
            HeaderLine(name: "Subject", value: "x"),
            HeaderLine(name: "received", value: "from [10.0.0.2] by mx.example.org with ESMTPSA; Tue, 3 Mar 2026 11:00:00 +0100")
        ]
        let hops = ReceivedHop.path(fields)
        #expect(hops.count == 2)
        #expect(hops[0].from == "[10.0.0.2]" && hops[0].by == "mx.example.org" && hops[0].with == "ESMTPSA")
        #expect(hops[1].from == "mx.example.org (mx.example.org [192.0.2.1]) (using TLSv1.3 with cipher X)", "keywords in comments stay")
        #expect(hops[1].by == "mail.tern.test (Postfix)" && hops[1].with == "ESMTPS")
        #expect(hops[0].delay == nil && hops[1].delay == 5)
        #expect(ReceivedHop.parse("garbage without a date").date == nil)
    }

    @Test func mboxrdQuotesFromLinesReversibly() {
        let message = Array("Subject: x\r\n\r\nFrom here\r\n>From there\r\nnot From\r\nlast".utf8)
        let entry = String(decoding: MboxWriter.entry(message), as: UTF8.self)
        #expect(entry == "From MAILER-DAEMON Thu Jan  1 00:00:00 1970\nSubject: x\n\n>From here\n>>From there\nnot From\nlast\n\n")
    }
}
