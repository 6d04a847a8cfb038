// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing

/// A video's first frame as its thumbnail, through ffmpeg where it is installed: a stand-in
/// ffmpeg shows what the real one is given and may do (always run), and the real one, where the
/// machine has it, makes frames of tiny generated videos of each container jv names.
@Suite(.tags(.e2e))
struct VideoThumbnailTests {
    /// The first folder of the sandbox's `PATH` that has an ffmpeg, if any.
    static let ffmpeg = JV.tool("ffmpeg")

    /// The start of an MP4 file (an `ftyp` box of brand `isom`): jv-thumbnail calls it video/mp4.
    static let mp4Head = Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8) + [UInt8](repeating: 0, count: 64))

    /// Attaches `file` to a new entry; the attachment as `jv attachments --json` lists it.
    static func attach(_ sandbox: Sandbox, _ file: String, env: [String: String?] = [:]) throws -> [String: Any] {
        let entry = try sandbox.add("With a video.")
        let attached = try sandbox.run(["attach", entry, file], env: env)
        try Sandbox.requireSuccess(attached)
        let id = attached.out.trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(try sandbox.run(["attachments", "--json"]).array().first { $0["id"] as? String == id })
    }

    @Test("a stand-in ffmpeg on PATH: it is told the container, gets an empty environment, cannot write a file, and its PNG frame gives the video's pixel size")
    func standInFFmpeg() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let tools = sandbox.folder.file("tools")
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        let frame = try sandbox.folder.write("frame.png", ExifImages.png(size: 12, taken: "2001:02:03 04:05:06", latitude: 1, longitude: 2))
        let small = try sandbox.folder.write("small.png", ExifImages.png(size: 4, taken: "2001:02:03 04:05:06", latitude: 1, longitude: 2))
        let written = sandbox.folder.file("written-by-ffmpeg")
        // The 12-pixel frame only when asked as jv asks (container named, file read in place, a
        // PNG to standard output) and with nothing of jv's environment; else the 4-pixel one.
        let script = """
            #!/bin/sh
            /usr/bin/touch '\(written)'
            case " $* " in
            *" -protocol_whitelist file,pipe -f mov -i file:/dev/stdin "*" -c:v png "*" pipe:1 "*) expected=yes ;;
            esac
            if [ "$expected" = yes ] && [ -z "$HOME$JV_PASSPHRASE_FILE$JV_VAULT" ]; then exec /bin/cat '\(frame)'; fi
            exec /bin/cat '\(small)'
            """
        _ = try sandbox.folder.write("tools/ffmpeg", script)
        chmod(tools + "/ffmpeg", 0o755)
        let video = try sandbox.folder.write("clip.mp4", Self.mp4Head)
        let attachment = try Self.attach(sandbox, video, env: ["PATH": tools + ":/usr/bin:/bin"])
        #expect(attachment["media_type"] as? String == "video/mp4" && attachment["kind"] as? String == "video", "\(attachment)")
        #expect(attachment["width"] as? Int == 12 && attachment["height"] as? Int == 12, "\(attachment)")
        #expect(attachment["taken_at"] == nil && attachment["location"] == nil, "a frame's EXIF is not the video's: \(attachment)")
        #expect(!FileManager.default.fileExists(atPath: written), "the seccomp filter refused to create a file")

        // A frame that is not a PNG is no thumbnail: the video is stored by its type alone.
        _ = try sandbox.folder.write("tools/ffmpeg", "#!/bin/sh\necho 'not a picture'\n")
        chmod(tools + "/ffmpeg", 0o755)
        // Other bytes: the same content attached again keeps the details it was stored with.
        let another = try sandbox.folder.write("another.mp4", Self.mp4Head + Data([1]))
        let other = try Self.attach(sandbox, another, env: ["PATH": tools + ":/usr/bin:/bin"])
        #expect(other["kind"] as? String == "video" && other["width"] == nil, "\(other)")
    }

    /// Each container jv names, made by ffmpeg (`testsrc`, 96 × 64, half a second at 25 frames a second): its
    /// extension, ffmpeg's output options, and the media type jv-thumbnail recognises.
    static let containers: [(String, [String], String)] = [
        ("mp4", ["-c:v", "mpeg4"], "video/mp4"),
        ("mov", ["-c:v", "mpeg4"], "video/quicktime"),
        ("mkv", ["-c:v", "mpeg4"], "video/webm"),
        ("avi", ["-c:v", "mpeg4"], "video/x-msvideo"),
        ("mpg", ["-c:v", "mpeg1video", "-f", "mpeg"], "video/mpeg"),
    ]

    @Test("with ffmpeg installed, a tiny video of each container gets its first frame's size and thumbnail; without it on PATH, it is stored by its type alone",
          .tags(.externalTools, .slow), .notInQuickRun, .enabled(if: ffmpeg != nil, "ffmpeg is not installed (jv does not need it; apt install ffmpeg to run this test)"))
    func realFFmpeg() throws {
        let ffmpeg = try #require(Self.ffmpeg)
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        func make(_ name: String, size: String, _ options: [String]) throws -> String {
            let video = sandbox.folder.file(name)
            let made = try sandbox.runTool(ffmpeg, ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=25",
                                                    "-t", "0.5"] + options + ["-y", video])
            try #require(made.status == 0, "ffmpeg made no \(name): \(made)")
            return video
        }
        for (suffix, options, mediaType) in Self.containers {
            let attachment = try Self.attach(sandbox, try make("clip.\(suffix)", size: "96x64", options))
            #expect(attachment["media_type"] as? String == mediaType, "\(suffix): \(attachment)")
            #expect(attachment["width"] as? Int == 96 && attachment["height"] as? Int == 64, "\(suffix): \(attachment)")
        }
        // Another video (the same bytes would keep the details they were stored with).
        let without = try Self.attach(sandbox, try make("other.mp4", size: "80x48", ["-c:v", "mpeg4"]), env: ["PATH": "/nonexistent"])
        #expect(without["media_type"] as? String == "video/mp4" && without["width"] == nil, "\(without)")
    }
}
