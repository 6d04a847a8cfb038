// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0
import PackageDescription

let package = Package(
    name: "JournalVault",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "JournalVault", targets: ["JournalVault"]),
        .executable(name: "jv", targets: ["jv"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .target(name: "VaultCrypto", dependencies: ["CSodium"]),
        // libvips, for jv-thumbnail alone: jv and the library never link it (a decoder's attack
        // surface, and GLib's start-up cost, stay in the thumbnailer's own process).
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .target(name: "CProcessHygiene"),
        // The session agent's memory: SQLite's allocator that wipes what it frees, and mlock.
        .target(name: "CAgentMemory", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "Migrations",
            path: "migrations",
            resources: [
                .embedInCode("0001_entries.sql"),
                .embedInCode("0002_ai.sql"),
                .embedInCode("0003_chats.sql"),
                .embedInCode("0004_entry_seq.sql"),
                .embedInCode("0005_manifest.sql"),
                .embedInCode("0006_sync.sql"),
                .embedInCode("0007_graph_ids.sql"),
                .embedInCode("0008_attachments.sql"),
                .embedInCode("0009_measures.sql"),
            ]
        ),
        .target(
            name: "JournalVault",
            dependencies: [
                "VaultCrypto",
                "Migrations",
                "CProcessHygiene",
                "CAgentMemory",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for reading trigger arguments and columns in place (RowDigest).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The command line as a library, so that its parsing and formatting are tested in
        // process (JVCommandLineTests); `jv` is its thin main.
        .target(
            name: "JVCommandLine",
            dependencies: [
                "JournalVault",
                "VaultCrypto",
                "CProcessHygiene",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "jv", dependencies: ["JVCommandLine", "CProcessHygiene"]),
        // The seccomp filter jv-thumbnail confines itself with (C: the filter is built from macros).
        .target(name: "CThumbnailSandbox"),
        .executableTarget(name: "jv-thumbnail", dependencies: ["CVips", "CProcessHygiene", "CThumbnailSandbox"], path: "Sources/jv-thumbnail"),
        .executableTarget(
            name: "jv-bench",
            dependencies: [
                "JournalVault",
                "VaultCrypto",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/jv-bench"
        ),
        .executableTarget(
            name: "jv-fuzz",
            dependencies: ["JournalVault", "JVCommandLine", "VaultCrypto"],
            path: "Sources/jv-fuzz"
        ),
        // What the test targets share that needs no library internals (temporary folders, a
        // seeded generator, hexadecimal): a plain target, so it cannot `@testable import`.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "TestSupport"]),
        .testTarget(
            name: "JournalVaultTests",
            dependencies: ["JournalVault", "VaultCrypto", "TestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "JVCommandLineTests", dependencies: ["JVCommandLine", "JournalVault", "VaultCrypto", "TestSupport"]),
        // Fixtures: programs the end-to-end tests run beside jv (a fake Ollama server).
        .testTarget(name: "jvTests", dependencies: ["jv", "JournalVault", "TestSupport"], exclude: ["Fixtures"]),
    ]
)
