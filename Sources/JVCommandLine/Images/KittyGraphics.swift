// SPDX-License-Identifier: Apache-2.0
import Foundation

/// An image in kitty's graphics protocol (kitty, Ghostty, WezTerm, Konsole): the raw RGB
/// pixels (`f=24`, `s=` width, `v=` height) transmitted and shown at once (`a=T`) scaled by the
/// terminal into `c=` columns and `r=` rows, quietly (`q=2`: no answer that would end up in
/// the shell's input), base64 in chunks of at most 4096 bytes, each but the last marked `m=1`.
enum KittyGraphics {
    static let chunkLength = 4096

    /// The escape sequences that draw `image` in `fit`'s cells after `indent` spaces, then a
    /// line break (the cursor is left right of the image, on its last row).
    static func render(_ image: RGBImage, fit: ImageFit, indent: Int = 0) -> [UInt8] {
        let payload = Array(Data(image.pixels).base64EncodedString().utf8)
        var bytes = [UInt8](repeating: UInt8(ascii: " "), count: indent)
        var start = 0
        repeat {
            let end = min(start + chunkLength, payload.count)
            let more = end < payload.count ? 1 : 0
            let control = start == 0 ? "a=T,q=2,f=24,s=\(image.width),v=\(image.height),c=\(fit.columns),r=\(fit.rows),m=\(more)" : "q=2,m=\(more)"
            bytes += Array("\u{1B}_G\(control);".utf8) + payload[start..<end] + Array("\u{1B}\\".utf8)
            start = end
        } while start < payload.count
        return bytes + [UInt8(ascii: "\n")]
    }
}
