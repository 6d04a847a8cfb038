// SPDX-License-Identifier: Apache-2.0
/// An image in DEC sixel graphics (xterm `-ti vt340`, foot, mlterm, WezTerm, Windows
/// Terminal, tmux 3.4): a palette of at most 256 colour registers (``SixelPalette``), then the
/// image in bands six pixels high, each band drawn once per colour it holds, a sixel character
/// (63 + six bits, the top pixel lowest) a column, runs of four or more written `!n` + character.
enum Sixel {
    /// The image fitted to `fit`'s cells of `cell` pixels, after `indent` spaces, then a line
    /// break.
    static func render(_ image: RGBImage, fit: ImageFit, cell: CellSize, indent: Int = 0) -> [UInt8] {
        let resized = image.resized(width: fit.columns * cell.width, height: pixelHeight(of: fit, cell: cell, width: image.width, height: image.height))
        return Array(repeating: UInt8(ascii: " "), count: indent) + encode(resized) + [UInt8(ascii: "\n")]
    }

    /// How many pixels high an image of `width` × `height` is drawn `fit.columns` cells of
    /// `cell` wide: its shape kept, within its rows.
    static func pixelHeight(of fit: ImageFit, cell: CellSize, width: Int, height: Int) -> Int {
        max(1, min(fit.rows * cell.height, (fit.columns * cell.width * height + width / 2) / width))
    }

    /// The sixel sequence that draws `image` at its size in pixels: `DCS q`, the raster
    /// attributes (square pixels, width, height), the colour registers in percent, the bands,
    /// `ST`.
    static func encode(_ image: RGBImage) -> [UInt8] {
        let palette = SixelPalette(image)
        var bytes = Array("\u{1B}Pq\"1;1;\(image.width);\(image.height)".utf8)
        for (register, color) in palette.colors.enumerated() {
            func percent(_ value: UInt8) -> Int { (Int(value) * 100 + 127) / 255 }
            bytes += Array("#\(register);2;\(percent(color.red));\(percent(color.green));\(percent(color.blue))".utf8)
        }
        for top in stride(from: 0, to: image.height, by: 6) {
            if top > 0 { bytes.append(UInt8(ascii: "-")) }
            // Each colour's six bits a column in this band, and which colours the band holds.
            var bits = [UInt8](repeating: 0, count: palette.colors.count * image.width)
            var present = [Bool](repeating: false, count: palette.colors.count)
            for y in top..<min(top + 6, image.height) {
                for x in 0..<image.width {
                    let register = Int(palette.indices[y * image.width + x])
                    present[register] = true
                    bits[register * image.width + x] |= 1 << (y - top)
                }
            }
            var first = true
            for register in present.indices where present[register] {
                // Back to the band's start for every colour after the first.
                if !first { bytes.append(UInt8(ascii: "$")) }
                first = false
                bytes += Array("#\(register)".utf8)
                appendRuns(of: bits[register * image.width..<(register + 1) * image.width].map { 63 + $0 }, to: &bytes)
            }
        }
        return bytes + Array("\u{1B}\\".utf8)
    }

    /// `sixels` with runs of four or more as `!n` + the character, without the empty sixels
    /// (`?`) at the end of the line, which draw nothing.
    private static func appendRuns(of sixels: [UInt8], to bytes: inout [UInt8]) {
        var end = sixels.count
        while end > 0 && sixels[end - 1] == UInt8(ascii: "?") { end -= 1 }
        var start = 0
        while start < end {
            var next = start + 1
            while next < end && sixels[next] == sixels[start] { next += 1 }
            let run = next - start
            if run >= 4 {
                bytes += Array("!\(run)".utf8)
                bytes.append(sixels[start])
            } else {
                bytes += repeatElement(sixels[start], count: run)
            }
            start = next
        }
    }
}

/// The size of a terminal cell in pixels: what the terminal says (`TIOCGWINSZ`), else the
/// common 10 × 20.
struct CellSize: Equatable, Sendable {
    let width: Int
    let height: Int

    static let assumed = CellSize(width: 10, height: 20)
}
