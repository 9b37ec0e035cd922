import FuzzSupport
import TernCore

/// libFuzzer target for the `List-Unsubscribe` reader (`make fuzz-unsubscribe`, issue 36): a
/// stranger writes these fields. The input is split at its first two NUL bytes into the
/// `List-Unsubscribe`, `List-Unsubscribe-Post` and `List-Id` values; any bytes give an answer,
/// never a crash, and what comes out is what the one-click POST and the mail may be given.
func fuzzOneInput(_ bytes: [UInt8]) {
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    let fields = ListHeaderFields(
        listUnsubscribe: parts.first, listUnsubscribePost: parts.count > 1 ? parts[1] : nil, listId: parts.count > 2 ? parts[2] : nil)
    guard let methods = ListUnsubscribeMethods.parse(fields) else { return }
    if let url = methods.oneClick {
        precondition(url.scheme == "https" && url.host != nil, "one-click only to an https address with a host")
        precondition(url.user == nil && url.password == nil, "no credentials in a one-click address")
    }
    if let mail = methods.mailto {
        precondition(!mail.subject.contains(where: { $0 == "\r" || $0 == "\n" }), "a subject is one line")
        precondition(!mail.address.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "," }), "one plain address")
        precondition(mail.body.count <= 2_000 && mail.subject.count <= 200, "capped")
    }
    precondition(!methods.listKey.isEmpty || methods.webPage == "", "a list has a key")
    _ = methods.preferred
}

@main
struct ListUnsubscribeFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
