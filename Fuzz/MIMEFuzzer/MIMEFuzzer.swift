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
}

@main
struct MIMEFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
