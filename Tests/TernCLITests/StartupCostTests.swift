import ArgumentParser
import Foundation
import Testing

@testable import TernCLI

/// Issue 38: what a `tern` process pays before its first line, kept from coming back.
@Suite struct StartupCostTests {
    /// A command without a `commandName` is named by ArgumentParser with `String(describing:)` of its type, for every
    /// command of the tree on every run: three protocol casts of a metatype, each a scan of every conformance record
    /// of the process (a quarter of `tern --help`'s CPU time before issue 38).
    @Test func everyCommandNamesItself() {
        var unnamed: [String] = []
        var pending: [any ParsableCommand.Type] = [TernCommand.self]
        while let command = pending.popLast() {
            if command.configuration.commandName == nil { unnamed.append("\(command)") }
            pending += command.configuration.subcommands
        }
        #expect(unnamed.isEmpty, "give these commands a commandName: \(unnamed)")
    }

    #if os(Linux)
        /// `FoundationNetworking` brings about 25 shared libraries (libcurl, GnuTLS, Kerberos, LDAP, SASL) that the dynamic
        /// loader maps and binds on every start; Tern's HTTP is AsyncHTTPClient's, so none of them may be linked.
        /// glibc's loader lists what it would load when `LD_TRACE_LOADED_OBJECTS` is set, and runs nothing.
        @Test func ternLoadsNoNetworkingOrXMLFoundation() throws {
            let process = Process()
            process.executableURL = TernProcess.executable
            process.arguments = ["--version"]
            process.environment = ["LD_TRACE_LOADED_OBJECTS": "1"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let loaded = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let needless = loaded.split(separator: "\n").filter { line in
                ["FoundationNetworking", "FoundationXML", "libcurl", "libxml2"].contains { line.contains($0) }
            }
            // Swift keeps an object file whose code did not change, with the libraries its imports named when it was
            // first compiled: after such a change, remove `.build/*/tern.build/main.swift.o` to build it again.
            #expect(needless.isEmpty, "\(TernProcess.executable.path) loads \(needless)")
        }
    #endif
}
