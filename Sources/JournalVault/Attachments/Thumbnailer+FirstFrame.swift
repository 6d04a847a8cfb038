// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A video's thumbnail: its first frame, taken by ffmpeg where it is installed (`ffmpeg` in a
/// folder of `PATH`; jv neither needs nor ships it). ffmpeg runs as `jv-thumbnail frame`, which
/// puts its own limits and seccomp filter on itself and then becomes ffmpeg (see `FirstFrame` in
/// jv-thumbnail), with the video as its standard input, an empty environment, standard error
/// to /dev/null, and the frame, a PNG, written to a pipe jv reads — no file is written. That PNG
/// is then described as any image is: its pixel size and a 320 px JPEG.
///
/// ```swift
/// let details = thumbnailer.describe(fileDescriptor: fd)   // a video: video/mp4, 1920×1080, a thumbnail
/// ```
extension Thumbnailer {
    /// The largest frame accepted: a PNG of a 4K frame is some 10 to 25 MiB.
    static let maximumFrame = 64 << 20
    /// The PNG signature, which a frame must start with.
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `details` (a video's, by its type alone) with the pixel size and thumbnail of the video's
    /// first frame; `details` as they are without ffmpeg, or when it fails, times out or writes
    /// anything but a PNG that decodes.
    func addingFirstFrame(to details: MediaDetails, fileDescriptor: Int32) -> MediaDetails {
        guard details.thumbnail.isEmpty, let ffmpeg = ChildProcess.onPath("ffmpeg") else { return details }
        lseek(fileDescriptor, 0, SEEK_SET)
        guard let answer = run(["frame", ffmpeg, details.media.mediaType], input: .descriptor(fileDescriptor), outputLimit: Self.maximumFrame),
              answer.status == .exited(0), answer.output.starts(with: Self.pngSignature),
              let frame = describe(.bytes(answer.output)), frame.media.kind == .image, !frame.thumbnail.isEmpty else { return details }
        let video = details.media
        return MediaDetails(media: AttachmentMedia(mediaType: video.mediaType, kind: video.kind, width: frame.media.width, height: frame.media.height,
                                                   takenAt: video.takenAt, location: video.location),
                            thumbnail: frame.thumbnail)
    }
}
