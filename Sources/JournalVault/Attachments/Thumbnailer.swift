// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The separate program `jv-thumbnail`, run for one file at a time: it reads a file the user
/// attaches (`describe`: media type, pixel size, EXIF time and place, a JPEG thumbnail) or a
/// thumbnail to draw (`decode`: RGB pixels). Image decoders are a classic attack surface, so
/// they run there and never in jv, which does not link libvips: the child limits itself
/// (address space, processor time, no core, file size; a seccomp filter: no socket, no file
/// written, no program run; libvips on one thread with six loaders allowed), and jv gives it an empty environment, no descriptor but its input and output
/// (standard error is /dev/null), a process group killed after its ``timeout``, and reads at most
/// the JSON line and ``maximumThumbnail`` bytes of its answer.
///
/// Without the program, or when it fails, the answer is nil: jv stores the file without a
/// thumbnail, pixel size or EXIF data.
///
/// ```swift
/// if let thumbnailer = Thumbnailer.located() {
///     let details = thumbnailer.describe(fileDescriptor: fd)   // MediaDetails?
///     let pixels = thumbnailer.decode(jpeg: thumbnail, width: 40, height: 20)   // 2,400 bytes
/// }
/// ```
public struct Thumbnailer: Sendable {
    /// The program's file name, beside jv or in `PREFIX/lib/jv`.
    public static let programName = "jv-thumbnail"
    /// Wall time for one run, start to exit, unless told otherwise (the child's own processor
    /// limit is 10 s).
    public static let defaultTimeout: Duration = .seconds(15)
    /// The longest JSON line accepted from `describe`.
    static let maximumLine = 4_096
    /// The largest thumbnail accepted (jv-thumbnail's are 320 px JPEGs of quality 75: tens of KiB).
    public static let maximumThumbnail = 1 << 20
    /// The largest side `decode` draws (jv-thumbnail refuses more).
    public static let maximumDecodeSide = 4_096

    public let executable: String
    public let timeout: Duration

    public init(executable: String, timeout: Duration = Thumbnailer.defaultTimeout) {
        self.executable = executable
        self.timeout = timeout
    }

    /// The thumbnailer jv runs: `$JV_THUMBNAILER` when set (that path only), else
    /// `jv-thumbnail` beside the running program (a build tree), else in `../lib/jv/` from it
    /// (jv installed as `PREFIX/bin/jv`, the thumbnailer as `PREFIX/lib/jv/jv-thumbnail`);
    /// nil when none of them is an executable file.
    public static func located(environment: [String: String] = ProcessInfo.processInfo.environment,
                               runningProgram: String? = Thumbnailer.runningProgram()) -> Thumbnailer? {
        let candidates: [String]
        if let path = environment["JV_THUMBNAILER"], !path.isEmpty {
            candidates = [path]
        } else if let runningProgram {
            let folder = URL(fileURLWithPath: runningProgram).deletingLastPathComponent()
            candidates = [folder.appendingPathComponent(programName).path,
                          folder.deletingLastPathComponent().appendingPathComponent("lib/jv/\(programName)").path]
        } else {
            candidates = []
        }
        return candidates.first(where: isExecutableFile).map { Thumbnailer(executable: $0) }
    }

    /// The running program's path, links resolved (`/proc/self/exe`).
    public static func runningProgram() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }

    private static func isExecutableFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }

    /// Describes the file open on `fileDescriptor`, read from its start by the child (a regular
    /// file is read in place, and its offset is put back as it was). Nil when the program fails,
    /// times out or answers anything malformed; an undecodable image is described by its type alone.
    /// A video's pixel size and thumbnail are its first frame's, where ffmpeg is installed
    /// (``addingFirstFrame(to:fileDescriptor:)``).
    public func describe(fileDescriptor: Int32) -> MediaDetails? {
        let offset = lseek(fileDescriptor, 0, SEEK_CUR)
        if offset >= 0 { lseek(fileDescriptor, 0, SEEK_SET) }
        defer { if offset >= 0 { lseek(fileDescriptor, offset, SEEK_SET) } }
        guard let details = describe(.descriptor(fileDescriptor)) else { return nil }
        return details.media.kind == .video ? addingFirstFrame(to: details, fileDescriptor: fileDescriptor) : details
    }

    /// `jv-thumbnail describe` of `input`, its answer checked.
    func describe(_ input: Input) -> MediaDetails? {
        guard let answer = run(["describe"], input: input, outputLimit: Thumbnailer.maximumLine + Thumbnailer.maximumThumbnail),
              answer.status == .exited(0) || answer.status == .exited(1),
              let newline = answer.output.prefix(Thumbnailer.maximumLine).firstIndex(of: UInt8(ascii: "\n")),
              let line = try? JSONParser.parse(Array(answer.output[..<newline])) else { return nil }
        return MediaDetails(line: line, thumbnail: Array(answer.output[(newline + 1)...]))
    }

    /// `jpeg` (a thumbnail) as exactly `width` × `height` × 3 bytes of RGB, rows top to bottom:
    /// fitted inside the rectangle with its proportions kept, centred on black. Nil when it does
    /// not decode or a side is outside 1…``maximumDecodeSide``.
    public func decode(jpeg: [UInt8], width: Int, height: Int) -> [UInt8]? {
        let sides = 1...Thumbnailer.maximumDecodeSide
        guard sides.contains(width), sides.contains(height) else { return nil }
        let size = width * height * 3
        guard let answer = run(["decode", "--width", String(width), "--height", String(height)], input: .bytes(jpeg), outputLimit: size),
              answer.status == .exited(0), answer.output.count == size else { return nil }
        return answer.output
    }

    enum Input {
        case descriptor(Int32)
        case bytes([UInt8])
    }

    /// Runs the program with `arguments`; its status and output, or nil when it could not start,
    /// outlived its ``timeout`` or wrote more than `outputLimit` bytes (then its group is killed).
    func run(_ arguments: [String], input: Input, outputLimit: Int) -> (status: Termination, output: [UInt8])? {
        var output: [Int32] = [-1, -1], feed: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { return nil }
        defer { close(output[0]) }
        var standardInput: Int32
        switch input {
        case .descriptor(let descriptor): standardInput = descriptor
        case .bytes:
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &feed) == 0 else {
                close(output[1])
                return nil
            }
            standardInput = feed[1]
        }
        let pid = try? ChildProcess(executable, arguments: arguments)
            .spawn(standardInput: .descriptor(standardInput), standardOutput: .descriptor(output[1]), standardError: .null,
                   ownProcessGroup: true, environment: [])
        close(output[1])
        if feed[1] >= 0 { close(feed[1]) }
        // The input is written on a thread of its own, so that a child answering before it has
        // read everything cannot leave both sides waiting; it ends when the child closes its end.
        let writer = DispatchSemaphore(value: 0)
        if case .bytes(let bytes) = input {
            let socket = feed[0]
            Thread.detachNewThread {
                var written = 0
                while pid != nil, written < bytes.count {
                    let count = bytes[written...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    written += count
                }
                close(socket)
                writer.signal()
            }
        } else {
            writer.signal()
        }
        defer { writer.wait() }
        guard let pid else { return nil }

        let deadline = ContinuousClock.now + timeout
        let collected = Thumbnailer.read(output[0], limit: outputLimit, deadline: deadline)
        guard let collected, let termination = Termination(waitingFor: pid, until: deadline) else {
            kill(-pid, SIGKILL)
            _ = Termination(waitingFor: pid)
            return nil
        }
        return (termination, collected)
    }

    /// Everything readable from `descriptor` until its end; nil past `limit` bytes or `deadline`.
    private static func read(_ descriptor: Int32, limit: Int, deadline: ContinuousClock.Instant) -> [UInt8]? {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + 1, 1000))
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return collected }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil
            }
            collected += buffer[0..<count]
            if collected.count > limit { return nil }
        }
    }
}
