import FuzzSupport
import IMAP

/// libFuzzer target for the IMAP response framer and parser (`make fuzz-imap`): any bytes from a
/// server give responses or typed errors, never a crash; framing the same bytes in two chunks at
/// any split gives the same frames.
func fuzzOneInput(_ bytes: [UInt8]) {
    var framer = ResponseFramer()
    framer.append(bytes)
    var frames: [[UInt8]] = []
    while true {
        guard let frame = try? framer.next() else { break }
        frames.append(frame)
        _ = try? ResponseParser().parse(frame)
    }
    if !bytes.isEmpty {
        var split = ResponseFramer()
        let cut = Int(bytes[0]) % bytes.count
        split.append(bytes[..<cut])
        var again: [[UInt8]] = []
        while let frame = try? split.next() { again.append(frame) }
        split.append(bytes[cut...])
        while let frame = try? split.next() { again.append(frame) }
        precondition(again == frames, "framing depends on how the bytes arrived")
    }
    // The connection's path: FETCH responses become FetchedMessages, whatever the bytes.
    var stream = IMAPResponseStream()
    try? stream.append(bytes[...]) { _ in }
}

@main
struct IMAPFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
