// SPDX-License-Identifier: Apache-2.0
/// The at most 256 colours a sixel image is drawn in, and which of them each pixel takes. An
/// image of 256 colours or fewer keeps them exactly, in the order they first appear; one of
/// more is reduced by median cut (Heckbert, 1982): the colours are split, box by box, at the
/// median of the box's widest channel until there are 256 boxes, and each box's colours
/// become their mean, weighted by how many pixels have them.
struct SixelPalette: Equatable, Sendable {
    static let maximumCount = 256

    /// The registers' colours.
    let colors: [RGB]
    /// For each pixel of the image, row by row, the index of its register.
    let indices: [UInt8]

    init(_ image: RGBImage) {
        var distinct: [RGB] = [], counts: [Int] = [], position: [RGB: Int] = [:]
        var pixelColor = [Int](repeating: 0, count: image.width * image.height)
        for index in pixelColor.indices {
            let offset = index * 3
            let color = RGB(red: image.pixels[offset], green: image.pixels[offset + 1], blue: image.pixels[offset + 2])
            if let known = position[color] {
                pixelColor[index] = known
                counts[known] += 1
            } else {
                position[color] = distinct.count
                pixelColor[index] = distinct.count
                distinct.append(color)
                counts.append(1)
            }
        }
        if distinct.count <= Self.maximumCount {
            colors = distinct
            indices = pixelColor.map { UInt8($0) }
            return
        }
        let boxes = Self.medianCut(Array(distinct.indices), colors: distinct, counts: counts)
        var register = [Int](repeating: 0, count: distinct.count)
        colors = boxes.enumerated().map { number, box in
            var sums = (0, 0, 0), total = 0
            for member in box {
                register[member] = number
                let (color, count) = (distinct[member], counts[member])
                sums.0 += Int(color.red) * count
                sums.1 += Int(color.green) * count
                sums.2 += Int(color.blue) * count
                total += count
            }
            return RGB(red: UInt8((sums.0 + total / 2) / total), green: UInt8((sums.1 + total / 2) / total), blue: UInt8((sums.2 + total / 2) / total))
        }
        indices = pixelColor.map { UInt8(register[$0]) }
    }

    /// The colours (indices into `colors`) split into at most `maximumCount` boxes. The box
    /// split next is the one with the widest range in one channel; ties go to the earlier box,
    /// and colours equal in the channel keep their order, so the palette is the same every time.
    private static func medianCut(_ all: [Int], colors: [RGB], counts: [Int]) -> [[Int]] {
        var boxes = [Box(all, colors: colors)]
        while boxes.count < maximumCount {
            guard let widest = boxes.indices.max(by: { boxes[$0].range < boxes[$1].range || (boxes[$0].range == boxes[$1].range && $0 > $1) }),
                  boxes[widest].range > 0 else { break }
            let channel = boxes[widest].channel
            let sorted = boxes[widest].members.enumerated()
                .sorted { (colors[$0.element][keyPath: channel], $0.offset) < (colors[$1.element][keyPath: channel], $1.offset) }
                .map(\.element)
            // The median by pixels, but each half keeps at least one colour.
            let half = sorted.reduce(0) { $0 + counts[$1] } / 2
            var cut = 0, seen = 0
            while cut < sorted.count - 1 && (cut == 0 || seen + counts[sorted[cut]] <= half) {
                seen += counts[sorted[cut]]
                cut += 1
            }
            boxes[widest] = Box(Array(sorted[..<cut]), colors: colors)
            boxes.append(Box(Array(sorted[cut...]), colors: colors))
        }
        return boxes.map(\.members)
    }

    /// Colours of the image that median cut keeps together, and the channel they spread most in.
    private struct Box {
        let members: [Int]
        let channel: KeyPath<RGB, UInt8>
        let range: Int

        init(_ members: [Int], colors: [RGB]) {
            self.members = members
            var widest: (channel: KeyPath<RGB, UInt8>, range: Int) = (\RGB.red, 0)
            for channel in [\RGB.red, \RGB.green, \RGB.blue] {
                var low = 255, high = 0
                for member in members {
                    let value = Int(colors[member][keyPath: channel])
                    low = min(low, value)
                    high = max(high, value)
                }
                if high - low > widest.range { widest = (channel, high - low) }
            }
            (channel, range) = widest
        }
    }
}
