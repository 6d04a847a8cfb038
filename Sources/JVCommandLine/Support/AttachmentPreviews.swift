// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// The thumbnails `jv show` and `jv attachments` draw under attachment lines, on a terminal
/// that can show images (``TerminalImages``). The sealed thumbnail is a JPEG; the renderers
/// that need pixels get them from `jv-thumbnail decode`, so no image decoder runs in jv.
struct AttachmentPreviews {
    private let images: TerminalImages
    private let thumbnailer: Thumbnailer?
    private let thumbnails: [UUID: [UInt8]]

    /// Nil when nothing would be drawn: `--json`, standard output not a terminal, no thumbnail
    /// among `attachments` (as ``UnlockedVault/attachmentsWithThumbnails(_:)`` lists them, each
    /// blob opened once), or images off or not possible there. The terminal is asked (which can
    /// take a moment) only once there is a thumbnail to draw.
    static func make(for attachments: [(attachment: Attachment, thumbnail: [UInt8])], options: ImageOptions, output: Output) -> AttachmentPreviews? {
        guard !output.json, options.images != false, isatty(STDOUT_FILENO) == 1 else { return nil }
        var thumbnails: [UUID: [UInt8]] = [:]
        for (attachment, thumbnail) in attachments where (attachment.kind == .image || attachment.kind == .video) && !thumbnail.isEmpty {
            thumbnails[attachment.id] = thumbnail
        }
        guard !thumbnails.isEmpty, let images = TerminalImages.forStandardOutput(options: options, output: output) else { return nil }
        return AttachmentPreviews(images: images, thumbnailer: Thumbnailer.located(), thumbnails: thumbnails)
    }

    /// Draws `attachment`'s thumbnail after `indent` spaces, straight to the terminal; nothing
    /// where it has none or it cannot be decoded.
    func draw(_ attachment: Attachment, indent: Int) throws {
        guard let jpeg = thumbnails[attachment.id], let size = ITermImage.size(ofJPEG: jpeg) else { return }
        var rgb: RGBImage?
        if case .pixels(let width, let height) = images.input(forWidth: size.width, height: size.height, indent: indent) {
            rgb = thumbnailer?.decode(jpeg: jpeg, width: width, height: height).flatMap { RGBImage(width: width, height: height, pixels: $0) }
        }
        try StandardOutput.with { try images.draw(rgb: rgb, jpeg: jpeg, indent: indent, to: $0) }
    }
}
