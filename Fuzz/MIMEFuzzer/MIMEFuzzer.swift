import FuzzSupport
import MIME

/// libFuzzer target for the message parser (`make fuzz-mime`): any bytes give a message, never a
/// crash or a leak, and every part the parser reports (attachments, filenames, the body plan) can be
/// reached.
func fuzzOneInput(_ bytes: [UInt8]) {
    let message = MessageParser().parse(bytes)
    for attachment in message.attachments {
        _ = message.content(ofPart: attachment.partId)
    }
    _ = BodyPlanner.plan(message.structure)
    _ = message.structure.flattened().map(\.filename)
    // Every field through the RFC 2047 decoder, not only those the parser reads (issue 21).
    _ = message.headers.fields.map(\.decodedValue)
}

@main
struct MIMEFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
