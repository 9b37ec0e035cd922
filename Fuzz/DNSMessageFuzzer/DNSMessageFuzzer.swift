import AccountDiscovery
import FuzzSupport

/// libFuzzer target for the DNS message parser (`make fuzz-dns`, issue 35): any datagram a server,
/// or a stranger on the path, sends gives a message or an error, never a crash or a loop; the
/// record caps hold and every name fits DNS's 255 bytes (written with `\DDD` escapes at most 4 bytes each).
func fuzzOneInput(_ bytes: [UInt8]) {
    guard let message = try? DNSMessage.parse(bytes) else { return }
    precondition(message.questions.count <= DNSMessage.maxRecords && message.answers.count <= DNSMessage.maxRecords, "records are capped")
    for record in message.answers {
        precondition(record.name.utf8.count <= 255 * 4, "names are bounded")
        switch record.data {
        case .srv(_, _, _, let name), .mx(_, let name), .cname(let name): precondition(name.utf8.count <= 255 * 4, "names are bounded")
        case .other: break
        }
    }
}

@main
struct DNSMessageFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
