// SPDX-License-Identifier: Apache-2.0
import Foundation

/// An image in iTerm2's inline image protocol (iTerm2, WezTerm, mintty): the image file itself
/// (the thumbnail's JPEG), base64 in `OSC 1337 ; File=inline=1;…: … BEL`, which the terminal
/// decodes and scales into `width` columns and `height` rows, keeping its aspect ratio.
enum ITermImage {
    /// The sequence that draws the JPEG `jpeg` in `fit`'s cells after `indent` spaces, then a
    /// line break.
    static func render(jpeg: [UInt8], fit: ImageFit, indent: Int = 0) -> [UInt8] {
        let header = "\u{1B}]1337;File=inline=1;size=\(jpeg.count);width=\(fit.columns);height=\(fit.rows);preserveAspectRatio=1:"
        return [UInt8](repeating: UInt8(ascii: " "), count: indent) + Array(header.utf8) + Array(Data(jpeg).base64EncodedString().utf8)
            + [0x07, UInt8(ascii: "\n")]
    }

    /// The width and height a JPEG states in its frame header (SOF0–SOF15 but DHT, JPG, DAC),
    /// read through the markers before it; nil for bytes that are not a JPEG or end first.
    static func size(ofJPEG jpeg: [UInt8]) -> (width: Int, height: Int)? {
        guard jpeg.starts(with: [0xFF, 0xD8]) else { return nil }
        var index = 2
        while index + 9 <= jpeg.count {
            guard jpeg[index] == 0xFF else { return nil }
            let marker = jpeg[index + 1]
            // Fill bytes before a marker.
            if marker == 0xFF { index += 1; continue }
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(jpeg[index + 5]) << 8 | Int(jpeg[index + 6])
                let width = Int(jpeg[index + 7]) << 8 | Int(jpeg[index + 8])
                return width > 0 && height > 0 ? (width, height) : nil
            }
            guard length >= 2 else { return nil }
            index += 2 + length
        }
        return nil
    }
}
