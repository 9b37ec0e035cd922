import FuzzSupport
import SMTP

/// libFuzzer target for the SMTP reply parser and DATA encoding (`make fuzz-smtp`): any bytes from
/// a server give replies or typed errors, never a crash, however they are split; any message body
/// encodes to DATA that cannot end early (no "\r\n.\r\n" inside, no bare CR or LF).
func fuzzOneInput(_ bytes: [UInt8]) {
    var whole = SMTPReplyParser()
    whole.append(bytes)
    var replies: [SMTPReply] = []
    while let reply = try? whole.next() { replies.append(reply) }
    if !bytes.isEmpty {
        var split = SMTPReplyParser()
        let cut = Int(bytes[0]) % bytes.count
        var again: [SMTPReply] = []
        split.append(bytes[..<cut])
        while let reply = try? split.next() { again.append(reply) }
        split.append(bytes[cut...])
        while let reply = try? split.next() { again.append(reply) }
        precondition(again == replies, "replies depend on how the bytes arrived")
    }
    let data = DotStuffing.encode(bytes) + Array("\r\n.\r\n".utf8)
    var terminators = 0
    for index in data.indices {
        if data[index] == 13 { precondition(index + 1 < data.count && data[index + 1] == 10, "bare CR") }
        if data[index] == 10 { precondition(index > 0 && data[index - 1] == 13, "bare LF") }
        if data[index...].starts(with: [13, 10, 46, 13, 10]) { terminators += 1 }
    }
    precondition(terminators == 1, "DATA ends early")
}

@main
struct SMTPFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
