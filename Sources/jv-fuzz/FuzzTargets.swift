// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import JVCommandLine
import VaultCrypto

/// Fuzz targets for every parser of untrusted bytes (README "Reliability"). `make fuzz` builds this with
/// libFuzzer (`-sanitize=fuzzer`) and runs each target; `JV_FUZZ_TARGET` names the target.
/// Built normally, it replays the files given as arguments through a target instead.
enum FuzzTargets {
    static let names = ["date", "json", "jv-export", "jrnl-txt", "jrnl-json", "dayone-json", "markdown-note", "backup", "age", "recovery-key",
                        "sync-pack", "sync-snapshot", "sync-keys", "sync-acks", "sync-rotation", "sync-blob",
                        "terminal-answers", "jpeg-size", "session-request", "session-answer", "session-stats-answer"]

    /// One input through one target. A parser may reject the input; it must never crash, and
    /// what it accepts must survive a round trip where one exists.
    static func run(_ target: String, _ bytes: [UInt8]) {
        switch target {
        case "date":
            let now = Instant(millis: 1_767_614_400_000, utcOffsetSeconds: 3600)
            // The input's length picks the order of days in numbers (none: as the importers read).
            let order = [nil] + DateOrder.allCases.map(Optional.some)
            _ = try? DateExpression.parse(String(decoding: bytes, as: UTF8.self), now: now, zone: TimeZone(identifier: "Europe/Berlin")!,
                                          order: order[bytes.count % order.count])
        case "json":
            if let value = try? JSONParser.parse(bytes) {
                // Outside strings a document is ASCII, and strings are checked by jv's own UTF-8
                // validator: an accepted document must be UTF-8 by the standard library's too.
                if String(validating: bytes, as: UTF8.self) == nil { crash("JSON accepted bytes that are not UTF-8") }
                let again = try? JSONParser.parse(Array(value.serialized().utf8))
                if again != value { crash("JSON round trip changed a document") }
            }
        case "jv-export": _ = try? ImportFormat.json.read(bytes)
        case "jrnl-txt": _ = try? ImportFormat.jrnlText.read(bytes, zone: TimeZone(identifier: "UTC")!)
        case "jrnl-json": _ = try? ImportFormat.jrnlJSON.read(bytes, zone: TimeZone(identifier: "UTC")!)
        case "dayone-json": _ = try? ImportFormat.dayOneJSON.read(bytes)
        case "markdown-note": if let problem = MarkdownNoteFuzzing.problem(reading: bytes) { crash("Markdown note: \(problem)") }
        case "backup": backup(bytes)
        case "age": if let identity { _ = try? AgeFile.decrypt(bytes, with: [identity]) }
        case "recovery-key": _ = try? RecoveryKey(text: String(decoding: bytes, as: UTF8.self))
        case "sync-pack": syncFile(.pack, bytes)
        case "sync-snapshot": syncFile(.snapshot, bytes)
        case "sync-keys": syncFile(.keys, bytes)
        case "sync-acks": syncFile(.acks, bytes)
        case "sync-rotation": syncFile(.rotation, bytes)
        case "sync-blob": syncFile(.blob, bytes)
        case "terminal-answers": terminalAnswers(bytes)
        case "jpeg-size":
            if let size = TerminalImageFuzzing.jpegSize(bytes), !(1...0xFFFF).contains(size.width) || !(1...0xFFFF).contains(size.height) {
                crash("a JPEG header gave a size no header can state: \(size)")
            }
        case "session-request": if let problem = SessionWireFuzzing.problemReadingRequest(bytes) { crash("session request: \(problem)") }
        case "session-answer": if let problem = SessionWireFuzzing.problemReadingQueryAnswer(bytes) { crash("session answer: \(problem)") }
        case "session-stats-answer": if let problem = SessionWireFuzzing.problemReadingStatsAnswer(bytes) { crash("session stats answer: \(problem)") }
        default: crash("unknown fuzz target \(target); known: \(names.joined(separator: ", "))")
        }
    }

    /// A finding: the message, then abort() so libFuzzer saves the input.
    static func crash(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        abort()
    }

    // Fixed, valid inputs of the harness itself (not fuzzed data).
    static let identity = try? AgeIdentity(text: "AGE-SECRET-KEY-184VLFTE6S2J2VZ7S3KHYHM7PSW9NFA3SVTN7JWMUDX9R56J8VYFSWANLMV")
    static let scratch = NSTemporaryDirectory() + "/jv-fuzz-\(getpid()).jvbak"

    /// The backup reader, which reads from a file.
    private static func backup(_ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: scratch, contents: Data(bytes))
        guard let passphrase = try? SecureBytes(copying: Array("fuzz".utf8)) else { return }
        _ = try? BackupFile.verify(scratch, credential: .passphrase(passphrase))
    }

    /// A file of a sync location, read as a device reads what it finds there.
    private static func syncFile(_ file: SyncFileFuzzing.File, _ bytes: [UInt8]) {
        _ = FileManager.default.createFile(atPath: scratch, contents: Data(bytes))
        if let again = try? SyncFileFuzzing.read(file, at: scratch), again != bytes { crash("sync \(file) file round trip changed it") }
    }

    /// What a terminal answered, read as ``TerminalProbe`` reads it: again after every piece
    /// that arrives, so a DA1 answer once read (the end of the answers) must still be read with
    /// more bytes after it.
    private static func terminalAnswers(_ bytes: [UInt8]) {
        let whole = TerminalImageFuzzing.terminalAnswers(bytes)
        let split = bytes.count / 2
        let first = TerminalImageFuzzing.terminalAnswers(Array(bytes[..<split]))
        if first.complete, !whole.complete { crash("the DA1 answer was lost when more bytes came") }
    }

    /// Read once: the environment is a dictionary built anew on each read, which would cost more
    /// than most inputs.
    static let target = ProcessInfo.processInfo.environment["JV_FUZZ_TARGET"] ?? "json"
}

#if FUZZING
/// libFuzzer's entry point for a program that keeps its own `main` (SwiftPM renames it).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
#endif

@main
enum FuzzMain {
    /// Fuzzing build: libFuzzer runs `JV_FUZZ_TARGET` with its usual flags. Normal build:
    /// `jv-fuzz FILE…` replays saved inputs (a crash reproducer, a seed corpus) through it.
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            FuzzTargets.run(FuzzTargets.target, data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
            return 0
        })
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            FuzzTargets.run(FuzzTargets.target, Array(data))
        }
        #endif
    }
}
