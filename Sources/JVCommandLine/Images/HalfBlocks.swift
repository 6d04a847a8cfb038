// SPDX-License-Identifier: Apache-2.0
/// An image drawn with text: each cell an upper half block `▀` whose foreground is the upper
/// pixel and whose background the lower one, so a cell shows two square pixels. For any
/// terminal with colour; the fallback when it has no graphics protocol.
enum HalfBlocks {
    /// A cell as half blocks make it: one pixel wide, two high, each pixel square.
    static let cell = CellSize(width: 1, height: 2)

    /// The image fitted to `fit` (`fit.columns` × 2·`fit.rows` pixels), one line of cells per
    /// line after `indent` spaces, each line ending with the colours reset and a line break.
    static func render(_ image: RGBImage, fit: ImageFit, depth: ColorDepth, indent: Int = 0) -> [UInt8] {
        let pixels = image.resized(width: fit.columns, height: 2 * fit.rows)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fit.rows * (indent + fit.columns * 40 + 8))
        for row in 0..<fit.rows {
            bytes += repeatElement(UInt8(ascii: " "), count: indent)
            var foreground: String?, background: String?
            for column in 0..<fit.columns {
                // A colour is set only when it changes: a sky is one colour for many cells.
                let upper = depth.parameters(for: pixels.pixel(x: column, y: 2 * row))
                let lower = depth.parameters(for: pixels.pixel(x: column, y: 2 * row + 1))
                if upper != foreground { bytes += Array("\u{1B}[38;\(upper)m".utf8) }
                if lower != background { bytes += Array("\u{1B}[48;\(lower)m".utf8) }
                (foreground, background) = (upper, lower)
                bytes += Array("▀".utf8)
            }
            bytes += Array("\u{1B}[0m\n".utf8)
        }
        return bytes
    }
}

/// The colours a terminal shows: 24-bit (`COLORTERM=truecolor`), or the 256 of xterm's palette.
enum ColorDepth: Equatable, Sendable {
    case trueColor
    case palette256

    /// The SGR parameters after `38;`/`48;` that select `color`.
    fileprivate func parameters(for color: RGB) -> String {
        switch self {
        case .trueColor: "2;\(color.red);\(color.green);\(color.blue)"
        case .palette256: "5;\(Self.paletteIndex(of: color))"
        }
    }

    /// The nearest of xterm's 256 colours that a palette terminal certainly has: the 6×6×6
    /// cube (16–231) or the 24 greys (232–255); the 16 system colours vary with the theme.
    static func paletteIndex(of color: RGB) -> Int {
        let levels = [0, 95, 135, 175, 215, 255]
        func step(_ value: UInt8) -> Int { value < 48 ? 0 : value < 115 ? 1 : (Int(value) - 35) / 40 }
        let red = step(color.red), green = step(color.green), blue = step(color.blue)
        let cube = 16 + 36 * red + 6 * green + blue
        let average = (Int(color.red) + Int(color.green) + Int(color.blue)) / 3
        let greyStep = average > 238 ? 23 : max(0, (average - 3) / 10), grey = 8 + 10 * greyStep
        func distance(_ r: Int, _ g: Int, _ b: Int) -> Int {
            let dr = r - Int(color.red), dg = g - Int(color.green), db = b - Int(color.blue)
            return dr * dr + dg * dg + db * db
        }
        return distance(grey, grey, grey) < distance(levels[red], levels[green], levels[blue]) ? 232 + greyStep : cube
    }
}
