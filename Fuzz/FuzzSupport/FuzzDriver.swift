import Foundation

/// The `main` of every fuzz target. Built with `-DFUZZING` (and `-sanitize=fuzzer`), it hands the
/// target to libFuzzer's driver (SwiftPM gives executables their own `main`, so libFuzzer's is not
/// used); built normally, it replays the files named on the command line, to reproduce a crash.
public enum FuzzDriver {
    public static func run(_ target: @escaping @Sendable ([UInt8]) -> Void) -> Never {
        #if FUZZING
            FuzzTarget.current = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                    FuzzTarget.current?(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
                    return 0
                })
        #else
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                target([UInt8](data))
            }
            print("replayed \(CommandLine.arguments.count - 1) inputs")
            exit(0)
        #endif
    }
}

#if FUZZING
    /// libFuzzer calls a C function pointer, which cannot capture: the target is kept here. Set once
    /// before the driver starts and only read afterwards, from libFuzzer's single thread.
    enum FuzzTarget {
        nonisolated(unsafe) static var current: (@Sendable ([UInt8]) -> Void)?
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // libFuzzer's C entry point keeps its C name.
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
