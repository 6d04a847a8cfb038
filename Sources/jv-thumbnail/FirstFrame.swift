// SPDX-License-Identifier: Apache-2.0
import Glibc

/// `jv-thumbnail frame FFMPEG MEDIA-TYPE`: becomes ffmpeg (at the absolute path FFMPEG, which jv
/// found), under this program's limits and seccomp filter (``ProcessLimits``, with execve left
/// allowed for this one exec) and with an empty environment, to write the first frame of the
/// video on standard input to standard output as a PNG. jv then describes that PNG as an image.
///
/// The container is named (`-f`), from the type jv-thumbnail recognised by the file's first
/// bytes, rather than left to ffmpeg's guess: a guess may pick a playlist or a concatenation
/// format, which opens other files named inside the video. Only the `file` and `pipe`
/// protocols are allowed, and the file is read in place (`/dev/stdin`) when it is a regular
/// file, so that an MP4 whose index is at its end can be read; a pipe is read as a stream.
enum FirstFrame {
    /// The ffmpeg demuxer of each video type ``MediaType`` recognises.
    static let demuxers = [
        "video/mp4": "mov", "video/quicktime": "mov", "video/3gpp": "mov",
        "video/webm": "matroska", "video/x-msvideo": "avi", "video/mpeg": "mpeg",
    ]

    /// ffmpeg's arguments (after its name) for the first frame of a `demuxer` file on standard input.
    static func arguments(demuxer: String, regularFile: Bool) -> [String] {
        ["-hide_banner", "-loglevel", "quiet", "-nostdin",
         "-threads", "1", "-protocol_whitelist", "file,pipe", "-f", demuxer, "-i", regularFile ? "file:/dev/stdin" : "pipe:0",
         "-map", "0:v:0", "-frames:v", "1", "-an", "-sn", "-dn",
         "-threads", "1", "-c:v", "png", "-pix_fmt", "rgb24", "-f", "image2pipe", "pipe:1"]
    }

    /// Execs ffmpeg; returns only with a reason it could not.
    static func run(_ arguments: [String]) -> Never {
        guard arguments.count == 2, let ffmpeg = arguments.first, ffmpeg.hasPrefix("/"), let demuxer = demuxers[arguments[1]] else {
            ExitStatus.fail("usage: jv-thumbnail frame /PATH/TO/FFMPEG VIDEO-MEDIA-TYPE < VIDEO (one of \(demuxers.keys.sorted().joined(separator: ", ")))")
        }
        var status = stat()
        let regularFile = fstat(STDIN_FILENO, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        let argv = ([ffmpeg] + Self.arguments(demuxer: demuxer, regularFile: regularFile)).map { strdup($0) } + [nil]
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        execve(ffmpeg, argv, &environment)
        ExitStatus.fail("jv-thumbnail frame: could not run \(ffmpeg) (\(String(cString: strerror(errno)))).")
    }
}
