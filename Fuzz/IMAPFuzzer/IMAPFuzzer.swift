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
        if let response = try? ResponseParser().parse(frame) { useSets(response) }
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
    // The connection's path: FETCH responses become FetchedMessages and EXISTS, EXPUNGE, VANISHED
    // and FETCH UID move the sequence map, whatever the bytes, in memory that follows the input.
    var stream = IMAPResponseStream()
    try? stream.append(bytes[...]) { _ in }
    _ = stream.uid(forSequence: stream.messageCount)
}

/// What the client does with a server's UID sets (COPYUID, APPENDUID, VANISHED), never by member.
func useSets(_ response: IMAPResponse) {
    var state: ResponseState?
    switch response {
    case .tagged(_, let tagged): state = tagged
    case .untagged(.state(let untagged)): state = untagged
    case .untagged(.vanished(_, let uids)):
        let asked = UIDSet([1...3, 100...200, 4_000_000_000...4_000_000_001])
        precondition(uids.intersection(asked).count <= asked.count)
    default: break
    }
    if let mapping = UIDMapping(state?.code) {
        let found = mapping.destinations(of: [1, 2, 3, 1000, 4_294_967_294])
        precondition(found.keys.allSatisfy { mapping.source?.contains($0) ?? false })
        _ = mapping.destination.first
    }
}

@main
struct IMAPFuzzerMain {
    static func main() {
        FuzzDriver.run(fuzzOneInput)
    }
}
