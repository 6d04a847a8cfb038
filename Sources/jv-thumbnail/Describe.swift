// SPDX-License-Identifier: Apache-2.0
import CVips
import Glibc

/// `jv-thumbnail describe`: what the file on standard input is, its pixel size, when and where
/// a photo was taken, and a small JPEG of it. Writes one line of JSON,
/// `{"media_type","kind","width"?,"height"?,"taken_at"?,"location"?{"latitude","longitude"},"thumbnail_bytes"?}`,
/// then exactly `thumbnail_bytes` bytes of JPEG when there is a thumbnail.
enum Describe {
    /// The thumbnail's longer side, at most.
    static let thumbnailSide: Int32 = 320
    static let quality: Int32 = 75
    /// Images of more pixels than this (by their header) are not decoded: a PNG or GIF cannot be
    /// shrunk while loading, and a header can claim 100,000 × 100,000 in a few bytes.
    static let maximumPixels = 250_000_000

    /// What was found out: always the type; the rest only once the image decoded.
    private struct Description {
        let media: MediaType
        var width = 0, height = 0
        var exif: ExifReader?
        var thumbnail: [UInt8] = []

        var jsonLine: [UInt8] {
            var members = ["\"media_type\":\"\(media.name)\"", "\"kind\":\"\(media.kind.rawValue)\""]
            if !thumbnail.isEmpty {
                members += ["\"width\":\(width)", "\"height\":\(height)"]
                if let takenAt = exif?.takenAt { members.append("\"taken_at\":\"\(takenAt)\"") }
                if let location = exif?.location {
                    members.append("\"location\":{\"latitude\":\(location.latitude),\"longitude\":\(location.longitude)}")
                }
                members.append("\"thumbnail_bytes\":\(thumbnail.count)")
            }
            return Array(("{" + members.joined(separator: ",") + "}\n").utf8)
        }
    }

    static func run() -> ExitStatus {
        let source = Vips.standardInput()
        defer { Vips.release(source) }
        var description = Description(media: MediaType(recognising: head(of: source)))
        let decoded = description.media.kind == .image && decode(source, into: &description)
        if !decoded { description.thumbnail = [] }
        guard StandardOutput.write(description.jsonLine), StandardOutput.write(description.thumbnail) else { return .failure }
        // Audio, video and PDF are described by their type alone; an image that did not decode,
        // or bytes of no known type, are "not an image we can decode".
        return decoded || (description.media.kind != .image && description.media != .unknown) ? .done : .notDecodable
    }

    /// The first bytes of the file, without consuming them.
    private static func head(of source: UnsafeMutablePointer<VipsSource>) -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        let length = vips_source_sniff_at_most(source, &data, MediaType.headLength)
        guard length > 0, let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(length)))
    }

    /// Reads the header (size, orientation, EXIF), then makes the thumbnail; false if either fails.
    private static func decode(_ source: UnsafeMutablePointer<VipsSource>, into description: inout Description) -> Bool {
        guard let header = jv_vips_header(source) else { return false }
        defer { Vips.release(header) }
        var width = Int(vips_image_get_width(header)), height = Int(vips_image_get_height(header))
        guard width > 0, height > 0, width * height <= maximumPixels else { return false }
        // Orientations 5 to 8 turn the picture a quarter: the size people see is the other way round.
        if vips_image_get_orientation_swap(header) != 0 { swap(&width, &height) }
        (description.width, description.height) = (width, height)
        description.exif = exifBlock(of: header).flatMap(ExifReader.init)

        var thumbnail: UnsafeMutablePointer<VipsImage>?, rgb: UnsafeMutablePointer<VipsImage>?
        defer { Vips.release(thumbnail); Vips.release(rgb) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard jv_vips_thumbnail(source, &thumbnail, thumbnailSide, thumbnailSide, 0) == 0, let thumbnail,
              jv_vips_rgb(thumbnail, &rgb, 255) == 0, let rgb,
              jv_vips_jpeg(rgb, &buffer, &length, quality) == 0, let buffer else { return false }
        defer { g_free(buffer) }
        description.thumbnail = Array(UnsafeRawBufferPointer(start: buffer, count: length))
        return !description.thumbnail.isEmpty
    }

    private static func exifBlock(of image: UnsafeMutablePointer<VipsImage>) -> [UInt8]? {
        guard vips_image_get_typeof(image, "exif-data") != 0 else { return nil }
        var data: UnsafeRawPointer?
        var length = 0
        guard vips_image_get_blob(image, "exif-data", &data, &length) == 0, let data else { return nil }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }
}
