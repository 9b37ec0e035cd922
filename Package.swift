// swift-tools-version: 6.1
import PackageDescription

/// Tern: a privacy-first mail client. One module per concern; dependencies point inward to
/// `TernCore` (domain types, repository protocols, use cases). See docs/ARCHITECTURE.md.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// How the executables are linked: with mimalloc (docs/decisions.md), and on Linux in release builds
/// (`make bench-build`, `make install`) by lld with two flags that keep the binary's start-up tables
/// out of memory (issue 38, BENCHMARKS.md "What a full sync's peak is made of"): the static Swift
/// runtime's link arguments export every symbol (`-export-dynamic`: 55,000 names, 4.5 MB of tables
/// the loader reads at start), which nothing in `tern` looks up, and PIE relocations packed as
/// `DT_RELR` (glibc 2.36, Debian 12) instead of 3.5 MB of `RELA` entries read at every start.
let executableLinking: [LinkerSetting] = [
    .linkedLibrary("mimalloc", .when(platforms: [.linux])),
    .unsafeFlags(
        ["-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
        .when(platforms: [.linux], configuration: .release))
]

let package = Package(
    name: "Tern",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tern", targets: ["tern"]),
        .executable(name: "tern-bench", targets: ["tern-bench"]),
        .library(name: "TernCore", targets: ["TernCore"]),
        // Testing support shipped beside the product (as Hummingbird ships HummingbirdTesting): an
        // in-memory IMAP server implementing the sync engine's seam, so the engine is tested with no server.
        .library(name: "TernTesting", targets: ["TernTesting"])
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0")
    ],
    targets: [
        // Domain model, repository protocols and use cases. No I/O framework dependencies.
        .target(name: "TernCore", dependencies: ["FileNameSafety"], swiftSettings: strict),
        // The local store: SQLite through GRDB (WAL, migrations, FTS5), implementing TernCore's repositories.
        .target(
            name: "MailStore",
            dependencies: ["TernCore", "CivilCalendar", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),
        // A stranger's file name made safe to show and to save (`AttachmentFilename`): the rule for the names
        // MIME reads from mail and for the names the core saves and shows, so a leaf both use.
        .target(name: "FileNameSafety", swiftSettings: strict),
        // Days since 1970 as a proleptic Gregorian date, for the dates MIME and MailStore write without a formatter.
        .target(name: "CivilCalendar", swiftSettings: strict),
        // RFC 3492 Punycode, the one encoder of IDNA labels for MIME and HTMLSafety (both leaves: no other dependency).
        .target(name: "IDNA", swiftSettings: strict),
        // Internet mail: parse bytes into messages and build messages into bytes (RFC 5322, MIME).
        .target(
            name: "MIME",
            dependencies: ["IDNA", "FileNameSafety", "CivilCalendar", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        // The system's zlib, for IMAP COMPRESS=DEFLATE (RFC 4978).
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // What IMAP and SMTP share below the protocol: the TLS policy, transport error wording, deflate.
        .target(
            name: "MailTransport",
            dependencies: [
                "CZlib",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto")
            ],
            swiftSettings: strict),
        // IMAP: response framing and grammar (pure), then the SwiftNIO client.
        .target(
            name: "IMAP",
            dependencies: [
                "MIME", "MailTransport", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict),
        // SMTP submission on SwiftNIO.
        .target(
            name: "SMTP",
            dependencies: [
                "MailTransport", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict),
        // The sync engine (FR-SYNC-01..10): its seam over IMAP, its decisions as state machines, the engine itself.
        .target(name: "Sync", dependencies: ["TernCore", "IMAP", "MIME", "HTMLSafety", "MailTransport"], swiftSettings: strict),
        // The sync engine's test support (issue 33): an in-memory IMAP server, its sessions and pool, behind
        // Sync's `SyncSession` / `SyncConnectionPool` seam; failures injected on demand.
        .target(name: "TernTesting", dependencies: ["Sync", "IMAP", "MIME", "TernCore"], swiftSettings: strict),
        // HTML safety: an HTML5 tokenizer and tree builder (WHATWG), sanitizer, trackers, quoted text.
        .target(
            name: "HTMLSafety", dependencies: ["IDNA"],
            resources: [
                .embedInCode("Resources/tracker-domains.json"), .embedInCode("Resources/tracker-hosts.txt"),
                .embedInCode("Resources/link-tracking.txt")
            ],
            swiftSettings: strict),
        // Thread summaries and smart replies (FR-ED-02, FR-COMP-03): the built-in provider (word
        // lists, offline) and the client of a local OpenAI-compatible server. Pure: HTTP comes from the runtime.
        .target(name: "Assist", dependencies: ["TernCore"], swiftSettings: strict),
        // Issue 35: an address's IMAP and SMTP settings found privacy first (the shipped provider table, the
        // domain's autoconfig, DNS SRV and MX, an online database only with consent): the steps of TernCore's
        // `DiscoverAccountSettingsUseCase`, with their clientConfig XML reader, DNS messages and stub resolver.
        .target(
            name: "AccountDiscovery",
            dependencies: [
                "TernCore", "IDNA", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "AsyncHTTPClient", package: "async-http-client")
            ],
            swiftSettings: strict),
        // Composition root: wires live implementations (store, secrets, later IMAP/SMTP) into use cases.
        .target(
            name: "TernRuntime",
            dependencies: [
                "TernCore", "MailStore", "IMAP", "SMTP", "MIME", "Sync", "HTMLSafety", "Assist", "MailTransport", "AccountDiscovery",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "AsyncHTTPClient", package: "async-http-client")
            ],
            swiftSettings: strict),
        // The web front end (`tern serve`): Hummingbird on 127.0.0.1, pages written on the server, small
        // scripts and styles embedded in the binary (nothing is fetched from anywhere). Talks to use cases only.
        .target(
            name: "WebUI",
            dependencies: [
                "TernCore", "TernRuntime", "FileNameSafety", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "Logging", package: "swift-log")
            ],
            resources: [
                .embedInCode("Assets/app.css"), .embedInCode("Assets/app.js"), .embedInCode("Assets/account.js"), .embedInCode("Assets/settings.js"),
                .embedInCode("Assets/body.css"),
                .embedInCode("Assets/icon.svg"), .embedInCode("Assets/search.js"),
                .embedInCode("Assets/notifications.js")
            ],
            swiftSettings: strict),
        // The command-line front end. Talks to use cases only.
        .target(
            name: "TernCLI",
            dependencies: [
                "TernCore", "TernRuntime", "WebUI", "MIME", "HTMLSafety", "Sync", "Assist", "FileNameSafety",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict),
        // Linked with mimalloc, which then serves every allocation of the process (docs/decisions.md).
        .executableTarget(name: "tern", dependencies: ["TernCLI"], swiftSettings: strict, linkerSettings: executableLinking),
        // The measurements of BENCHMARKS.md and the Assist evaluation's runner (`tern-bench`), apart from the
        // product: `tern` links none of it. Linked with mimalloc as `tern` is, so both measure the same allocator.
        .target(
            name: "TernBenchmarks",
            dependencies: ["TernCore", "MailStore", "IMAP", "Assist", "TernRuntime", "Sync", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/TernBenchmarks", swiftSettings: strict),
        .executableTarget(
            name: "tern-bench",
            dependencies: [
                "TernBenchmarks", "TernCore", "TernRuntime", "MIME", "HTMLSafety", "Sync", "Assist",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Benchmarks/TernBench", swiftSettings: strict, linkerSettings: executableLinking),
        // libFuzzer targets (`make fuzz-mime`); without -DFUZZING they replay files.
        .target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strict),
        .executableTarget(name: "MIMEFuzzer", dependencies: ["MIME", "FuzzSupport"], path: "Fuzz/MIMEFuzzer", swiftSettings: strict),
        .executableTarget(
            name: "IMAPFuzzer", dependencies: ["IMAP", "FuzzSupport"], path: "Fuzz/IMAPFuzzer", exclude: ["seeds"], swiftSettings: strict),
        .executableTarget(
            name: "HTMLFuzzer", dependencies: ["HTMLSafety", "FuzzSupport"], path: "Fuzz/HTMLFuzzer", exclude: ["seeds"], swiftSettings: strict),
        .executableTarget(
            name: "SMTPFuzzer", dependencies: ["SMTP", "FuzzSupport"], path: "Fuzz/SMTPFuzzer", exclude: ["seeds"], swiftSettings: strict),
        .executableTarget(
            name: "AuthResultsFuzzer", dependencies: ["MIME", "TernCore", "FuzzSupport"], path: "Fuzz/AuthResultsFuzzer", exclude: ["seeds"],
            swiftSettings: strict),
        .executableTarget(
            name: "ClientConfigFuzzer", dependencies: ["AccountDiscovery", "TernCore", "FuzzSupport"], path: "Fuzz/ClientConfigFuzzer",
            exclude: ["seeds"], swiftSettings: strict),
        .executableTarget(
            name: "DNSMessageFuzzer", dependencies: ["AccountDiscovery", "FuzzSupport"], path: "Fuzz/DNSMessageFuzzer", exclude: ["seeds"],
            swiftSettings: strict),
        .executableTarget(
            name: "ListUnsubscribeFuzzer", dependencies: ["TernCore", "FuzzSupport"], path: "Fuzz/ListUnsubscribeFuzzer", exclude: ["seeds"],
            swiftSettings: strict),
        .executableTarget(
            name: "MarkdownFuzzer", dependencies: ["TernCore", "HTMLSafety", "FuzzSupport"], path: "Fuzz/MarkdownFuzzer", exclude: ["seeds"],
            swiftSettings: strict),

        // Scripted hostile servers and log capture, shared by the IMAP and SMTP integration tests.
        .target(
            name: "ScriptedServers",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log")
            ],
            path: "Tests/ScriptedServers", swiftSettings: strict),
        .testTarget(name: "TernCoreTests", dependencies: ["TernCore", "FileNameSafety"], swiftSettings: strict),
        .testTarget(
            name: "MailTransportTests",
            dependencies: [
                "MailTransport", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl")
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AccountDiscoveryTests",
            dependencies: [
                "AccountDiscovery", "TernCore", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")
            ],
            swiftSettings: strict),
        .testTarget(name: "AssistTests", dependencies: ["Assist", "TernCore"], swiftSettings: strict),
        .testTarget(
            name: "IMAPTests",
            dependencies: [
                "IMAP", "MIME", "MailTransport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio")
            ],
            swiftSettings: strict),
        .testTarget(
            name: "IMAPIntegrationTests",
            dependencies: [
                "IMAP", "TernCore", "Sync", "MailStore", "ScriptedServers", "MailTransport", .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl")
            ],
            swiftSettings: strict),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "Sync", "TernCore", "TernTesting", "IMAP", "MIME", "MailStore", "MailTransport", .product(name: "GRDB", package: "GRDB.swift")
            ],
            swiftSettings: strict),
        .testTarget(name: "SMTPTests", dependencies: ["SMTP"], swiftSettings: strict),
        .testTarget(
            name: "HTMLSafetyTests", dependencies: ["HTMLSafety", "IDNA", "TernBenchmarks"], exclude: ["html5lib-tests", "KnownFailures"],
            swiftSettings: strict),
        .testTarget(name: "SMTPIntegrationTests", dependencies: ["SMTP", "IMAP", "MIME", "ScriptedServers", "MailTransport"], swiftSettings: strict),
        .testTarget(name: "MIMETests", dependencies: ["MIME", "TernCore", "IDNA", "Sync"], resources: [.copy("Corpus")], swiftSettings: strict),
        .testTarget(
            name: "MailStoreTests",
            dependencies: ["MailStore", "TernCore", "TernRuntime", "MIME", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),
        .testTarget(
            name: "WebUITests",
            dependencies: [
                "WebUI", "TernCore", "TernRuntime", "TernBenchmarks", "FileNameSafety", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TernRuntimeTests",
            dependencies: ["TernRuntime", "TernCore", "MailTransport", "IMAP", "SMTP", "Sync", "Assist", "ScriptedServers", "MailStore"],
            swiftSettings: strict),
        .testTarget(
            name: "TernCLITests",
            dependencies: [
                "tern", "TernCLI", "TernCore", "MailStore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            swiftSettings: strict)
    ],
    swiftLanguageModes: [.v6]
)
