// SPDX-License-Identifier: Apache-2.0
import CVips
import Glibc

/// `jv-thumbnail decode --width W --height H`: the image on standard input (a thumbnail jv
/// made) as exactly W × H × 3 bytes of 8-bit RGB, rows top to bottom, for the terminal's
/// sixel and half-block renderings. The picture keeps its proportions: it is scaled to fit
/// inside W × H (larger or smaller) and centred, the rest of the rectangle black. A caller
/// that wants no bands asks for a rectangle of the picture's own proportions.
enum Decode {
    static func run(_ size: DecodeSize) -> ExitStatus {
        let source = Vips.standardInput()
        defer { Vips.release(source) }
        var fitted: UnsafeMutablePointer<VipsImage>?, rgb: UnsafeMutablePointer<VipsImage>?, boxed: UnsafeMutablePointer<VipsImage>?
        defer { Vips.release(fitted); Vips.release(rgb); Vips.release(boxed) }
        guard jv_vips_thumbnail(source, &fitted, size.width, size.height, 1) == 0, let fitted,
              jv_vips_rgb(fitted, &rgb, 0) == 0, let rgb,
              jv_vips_letterbox(rgb, &boxed, size.width, size.height) == 0, let boxed else { return .notDecodable }
        var length = 0
        guard let pixels = vips_image_write_to_memory(boxed, &length) else { return .notDecodable }
        defer { g_free(pixels) }
        guard length == Int(size.width) * Int(size.height) * 3 else { return .failure }
        return StandardOutput.write(UnsafeRawBufferPointer(start: pixels, count: length)) ? .done : .failure
    }
}

/// The rectangle `decode` fills, from `--width W --height H` (in either order).
struct DecodeSize {
    static let maximum: Int32 = 4096

    let width: Int32
    let height: Int32

    init?(arguments: [String]) {
        var values: [String: Int32] = [:]
        var remaining = arguments[...]
        while let name = remaining.popFirst() {
            guard name == "--width" || name == "--height", values[name] == nil, let text = remaining.popFirst(),
                  let value = Int32(text), (1...DecodeSize.maximum).contains(value) else { return nil }
            values[name] = value
        }
        guard let width = values["--width"], let height = values["--height"] else { return nil }
        self.width = width
        self.height = height
    }
}
