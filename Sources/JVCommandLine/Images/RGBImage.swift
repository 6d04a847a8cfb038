// SPDX-License-Identifier: Apache-2.0
/// An image as 8-bit RGB pixels, row by row from the top left, three bytes a pixel: what
/// `jv-thumbnail decode` writes and what the kitty, sixel and half-block renderers draw.
struct RGBImage: Equatable, Sendable {
    let width: Int
    let height: Int
    let pixels: [UInt8]

    /// Nil unless `pixels` holds exactly `width` × `height` × 3 bytes of a non-empty image.
    init?(width: Int, height: Int, pixels: [UInt8]) {
        let area = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !area.overflow, area.partialValue <= Int.max / 3, pixels.count == area.partialValue * 3 else { return nil }
        self.init(checkedWidth: width, height: height, pixels: pixels)
    }

    private init(checkedWidth width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The colour at column `x`, row `y`.
    func pixel(x: Int, y: Int) -> RGB {
        let offset = (y * width + x) * 3
        return RGB(red: pixels[offset], green: pixels[offset + 1], blue: pixels[offset + 2])
    }

    /// The image at `width` × `height`: each new pixel the average of the pixels its area
    /// covers when smaller (a box filter, which keeps a thumbnail's colours rather than
    /// picking every n-th pixel), the nearest one when larger.
    func resized(width newWidth: Int, height newHeight: Int) -> RGBImage {
        guard newWidth != width || newHeight != height else { return self }
        var result = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for row in 0..<newHeight {
            let top = row * height / newHeight, bottom = max(top + 1, (row + 1) * height / newHeight)
            for column in 0..<newWidth {
                let left = column * width / newWidth, right = max(left + 1, (column + 1) * width / newWidth)
                var sums = (0, 0, 0)
                for y in top..<bottom {
                    for x in left..<right {
                        let offset = (y * width + x) * 3
                        sums.0 += Int(pixels[offset])
                        sums.1 += Int(pixels[offset + 1])
                        sums.2 += Int(pixels[offset + 2])
                    }
                }
                let count = (bottom - top) * (right - left), target = (row * newWidth + column) * 3
                result[target] = UInt8((sums.0 + count / 2) / count)
                result[target + 1] = UInt8((sums.1 + count / 2) / count)
                result[target + 2] = UInt8((sums.2 + count / 2) / count)
            }
        }
        return RGBImage(checkedWidth: newWidth, height: newHeight, pixels: result)
    }
}

/// One pixel's colour.
struct RGB: Hashable, Sendable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
}
