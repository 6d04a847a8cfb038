// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import JVCommandLine
import Testing

/// The bytes each way of drawing an image writes, exactly, for images of a few pixels: half
/// blocks in 24-bit and 256 colours, kitty graphics (chunked), iTerm2's inline image, sixel
/// (palette, bands, runs), and the number of cells an image is fitted into.
@Suite("Terminal images: rendering", .tags(.inProcess))
struct TerminalImageRenderingTests {
    static let red = [UInt8]([255, 0, 0]), green = [UInt8]([0, 255, 0]), blue = [UInt8]([0, 0, 255]), white = [UInt8]([255, 255, 255])

    static func image(_ width: Int, _ height: Int, _ pixels: [[UInt8]]) throws -> RGBImage {
        try #require(RGBImage(width: width, height: height, pixels: pixels.flatMap { $0 }))
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("An image fits a square box of the columns given, keeping its shape, never wider than its pixels")
    func fitting() {
        #expect(ImageFit(width: 320, height: 240, maxColumns: 40) == ImageFit(columns: 40, rows: 15))
        // Portrait: as high as the box allows (columns / 2 rows), narrower to keep its shape.
        #expect(ImageFit(width: 240, height: 320, maxColumns: 40) == ImageFit(columns: 30, rows: 20))
        #expect(ImageFit(width: 3, height: 3, maxColumns: 40) == ImageFit(columns: 3, rows: 2))
        #expect(ImageFit(width: 1000, height: 10, maxColumns: 40) == ImageFit(columns: 40, rows: 1))
        #expect(ImageFit(width: 10, height: 1000, maxColumns: 40) == ImageFit(columns: 1, rows: 20))
        #expect(ImageFit(width: 320, height: 240, maxColumns: 0) == ImageFit(columns: 1, rows: 1))
        // Cells of another shape: rows for them, and the square box as many rows as columns.
        #expect(ImageFit(width: 320, height: 240, maxColumns: 40, cell: CellSize(width: 8, height: 8)) == ImageFit(columns: 40, rows: 30))
        #expect(ImageFit(width: 320, height: 320, maxColumns: 40, cell: CellSize(width: 9, height: 20)) == ImageFit(columns: 40, rows: 18))
        // Sizes no image has, and none at all, neither overflow nor divide by zero.
        #expect(ImageFit(width: Int.max, height: 0, maxColumns: Int.max, cell: CellSize(width: 0, height: Int.max)) == ImageFit(columns: 4096, rows: 1))
    }

    @Test("Pixels that are not width × height × 3 bytes are no image; shrinking averages, growing repeats")
    func pixels() throws {
        #expect(RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 11)) == nil)
        #expect(RGBImage(width: 0, height: 0, pixels: []) == nil)
        #expect(RGBImage(width: Int.max, height: 2, pixels: []) == nil)
        let image = try Self.image(2, 1, [[0, 100, 255], [255, 201, 0]])
        #expect(image.resized(width: 1, height: 1).pixels == [128, 151, 128])
        #expect(image.resized(width: 4, height: 1).pixels == [0, 100, 255, 0, 100, 255, 255, 201, 0, 255, 201, 0])
    }

    @Test("Half blocks: the upper pixel in the foreground, the lower in the background, colours set only when they change")
    func halfBlocks() throws {
        let image = try Self.image(2, 2, [Self.red, Self.green, Self.blue, Self.white])
        let fit = ImageFit(width: 2, height: 2, maxColumns: 40)
        #expect(Self.text(HalfBlocks.render(image, fit: fit, depth: .trueColor))
                == "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀\u{1B}[38;2;0;255;0m\u{1B}[48;2;255;255;255m▀\u{1B}[0m\n")
        #expect(Self.text(HalfBlocks.render(image, fit: fit, depth: .palette256, indent: 2))
                == "  \u{1B}[38;5;196m\u{1B}[48;5;21m▀\u{1B}[38;5;46m\u{1B}[48;5;231m▀\u{1B}[0m\n")
        let plain = try Self.image(2, 4, Array(repeating: [1, 2, 3], count: 8))
        #expect(Self.text(HalfBlocks.render(plain, fit: ImageFit(columns: 2, rows: 2), depth: .trueColor))
                == "\u{1B}[38;2;1;2;3m\u{1B}[48;2;1;2;3m▀▀\u{1B}[0m\n\u{1B}[38;2;1;2;3m\u{1B}[48;2;1;2;3m▀▀\u{1B}[0m\n")
    }

    @Test("256 colours: the nearest of xterm's colour cube or grey ramp")
    func palette256() {
        #expect(ColorDepth.paletteIndex(of: RGB(red: 255, green: 0, blue: 0)) == 196)
        #expect(ColorDepth.paletteIndex(of: RGB(red: 0, green: 0, blue: 0)) == 16)
        #expect(ColorDepth.paletteIndex(of: RGB(red: 255, green: 255, blue: 255)) == 231)
        #expect(ColorDepth.paletteIndex(of: RGB(red: 128, green: 128, blue: 128)) == 244)
        #expect(ColorDepth.paletteIndex(of: RGB(red: 95, green: 135, blue: 175)) == 67)
    }

    @Test("Kitty: raw RGB in base64, the size in pixels and cells, quiet")
    func kitty() throws {
        let image = try Self.image(1, 1, [[1, 2, 3]])
        #expect(Self.text(KittyGraphics.render(image, fit: ImageFit(columns: 1, rows: 1), indent: 1))
                == " \u{1B}_Ga=T,q=2,f=24,s=1,v=1,c=1,r=1,m=0;AQID\u{1B}\\\n")
    }

    @Test("Kitty: the base64 goes in chunks of 4096 bytes, each but the last marked m=1, keys only in the first")
    func kittyChunks() throws {
        // 1025 × 1 pixels: 3075 bytes, 4100 in base64.
        let pixels: [[UInt8]] = (0..<1025).map { (index: Int) -> [UInt8] in [UInt8(index % 256), UInt8(index / 256), 7] }
        let image = try Self.image(1025, 1, pixels)
        let base64 = Data(pixels.flatMap { $0 }).base64EncodedString()
        let drawn = Self.text(KittyGraphics.render(image, fit: ImageFit(columns: 40, rows: 1)))
        #expect(drawn == "\u{1B}_Ga=T,q=2,f=24,s=1025,v=1,c=40,r=1,m=1;\(base64.prefix(4096))\u{1B}\\"
                + "\u{1B}_Gq=2,m=0;\(base64.dropFirst(4096))\u{1B}\\\n")
        let exact = try Self.image(1024, 1, Array(repeating: [9, 9, 9], count: 1024))
        #expect(Self.text(KittyGraphics.render(exact, fit: ImageFit(columns: 40, rows: 1))).components(separatedBy: "\u{1B}_G").count == 2,
                "4096 bytes of base64 are one chunk")
    }

    /// A JPEG's first bytes: SOI, an APP0 segment, fill bytes, then a baseline frame header of
    /// `width` × `height` (what ``ITermImage/size(ofJPEG:)`` reads; the rest is not needed).
    static func jpegHeader(width: Int, height: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x06, 0x4A, 0x46, 0x49, 0x46, 0xFF, 0xFF, 0xC0, 0x00, 0x0B, 0x08,
         UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 0x01, 0x01, 0x11, 0x00]
    }

    @Test("iTerm2: the JPEG itself in base64, its width and height in cells, aspect ratio kept")
    func iTerm() throws {
        let jpeg = Self.jpegHeader(width: 640, height: 480)
        #expect(ITermImage.size(ofJPEG: jpeg)! == (640, 480))
        let drawn = Self.text(ITermImage.render(jpeg: jpeg, fit: ImageFit(width: 640, height: 480, maxColumns: 40), indent: 4))
        #expect(drawn == "    \u{1B}]1337;File=inline=1;size=24;width=40;height=15;preserveAspectRatio=1:\(Data(jpeg).base64EncodedString())\u{7}\n")
        #expect(ITermImage.size(ofJPEG: Array(jpeg.prefix(18))) == nil, "a JPEG that ends before its size")
        #expect(ITermImage.size(ofJPEG: Array("\u{89}PNG\r\n\u{1A}\n".utf8) + jpeg) == nil)
        #expect(ITermImage.size(ofJPEG: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00] + [UInt8](repeating: 0, count: 16)) == nil, "a segment length below 2")
    }

    @Test("Sixel: the registers in percent, then per band each colour's sixels after $, trailing empty sixels left out")
    func sixel() throws {
        let image = try Self.image(2, 2, [Self.red, Self.green, Self.blue, Self.red])
        #expect(Self.text(Sixel.encode(image))
                == "\u{1B}Pq\"1;1;2;2#0;2;100;0;0#1;2;0;100;0#2;2;0;0;100#0@A$#1?@$#2A\u{1B}\\")
    }

    @Test("Sixel: runs of four or more as !n, bands of six rows separated by -")
    func sixelRunsAndBands() throws {
        let line = try Self.image(10, 1, Array(repeating: [10, 20, 30], count: 10))
        #expect(Self.text(Sixel.encode(line)) == "\u{1B}Pq\"1;1;10;1#0;2;4;8;12#0!10@\u{1B}\\")
        let three = try Self.image(3, 1, Array(repeating: [0, 0, 0], count: 3))
        #expect(Self.text(Sixel.encode(three)) == "\u{1B}Pq\"1;1;3;1#0;2;0;0;0#0@@@\u{1B}\\")
        let column = try Self.image(1, 7, Array(repeating: Self.white, count: 7))
        #expect(Self.text(Sixel.encode(column)) == "\u{1B}Pq\"1;1;1;7#0;2;100;100;100#0~-#0@\u{1B}\\")
    }

    @Test("Sixel: fitted to its cells' pixels, after the indent, then a line break")
    func sixelFitted() throws {
        let image = try Self.image(2, 2, Array(repeating: Self.blue, count: 4))
        let drawn = Self.text(Sixel.render(image, fit: ImageFit(columns: 2, rows: 1), cell: CellSize(width: 3, height: 6), indent: 1))
        #expect(drawn == " \u{1B}Pq\"1;1;6;6#0;2;0;0;100#0!6~\u{1B}\\\n")
    }

    @Test("Sixel palette: up to 256 colours kept exactly; more reduced by median cut to 256, close and the same every time")
    func sixelPalette() throws {
        let exact = try Self.image(16, 16, (0..<256).map { (index: Int) -> [UInt8] in [UInt8(index), UInt8(255 - index), 7] })
        let kept = SixelPalette(exact)
        #expect(kept.colors.count == 256)
        #expect(kept.indices == (0..<256).map { UInt8($0) })

        // 64 × 64 colours: each channel spread over 0…252 in steps of 4.
        let pixels: [[UInt8]] = (0..<4096).map { (index: Int) -> [UInt8] in [UInt8(index % 64 * 4), UInt8(index / 64 * 4), 128] }
        let many = try Self.image(64, 64, pixels)
        let palette = SixelPalette(many)
        #expect(palette.colors.count == 256)
        #expect(palette == SixelPalette(many))
        var worst = 0
        for (index, pixel) in pixels.enumerated() {
            let chosen = palette.colors[Int(palette.indices[index])]
            let red: Int = abs(Int(chosen.red) - Int(pixel[0]))
            let green: Int = abs(Int(chosen.green) - Int(pixel[1]))
            let blue: Int = abs(Int(chosen.blue) - Int(pixel[2]))
            worst = max(worst, red, green, blue)
        }
        // 256 boxes over a 64 × 64 grid: 4 × 4 colours a box, 12 apart at most, 8 from its mean.
        #expect(worst <= 8, "a pixel drawn \(worst) away from its colour")
        let encoded = Self.text(Sixel.encode(many))
        #expect(encoded.hasPrefix("\u{1B}Pq\"1;1;64;64#0;2;") && encoded.contains("#255;2;") && !encoded.contains("#256;"))
    }

    @Test("Drawing: iTerm2 takes the JPEG (half blocks when there is none), the others the pixels; nothing without what is needed")
    func drawing() throws {
        let image = try Self.image(2, 2, [Self.red, Self.green, Self.blue, Self.white])
        let jpeg = Self.jpegHeader(width: 2, height: 2)
        func images(_ drawing: ImageProtocol) -> TerminalImages { TerminalImages(drawing: drawing, maxColumns: 40, terminalColumns: 80, cell: CellSize(width: 3, height: 6)) }
        let fit = ImageFit(columns: 2, rows: 1)
        #expect(images(.iterm2).rendered(rgb: image, jpeg: jpeg) == ITermImage.render(jpeg: jpeg, fit: fit))
        #expect(images(.iterm2).rendered(rgb: image, jpeg: nil) == HalfBlocks.render(image, fit: fit, depth: .trueColor))
        #expect(images(.iterm2).rendered(rgb: nil, jpeg: nil) == nil)
        #expect(images(.kitty).rendered(rgb: image, jpeg: jpeg, indent: 2) == KittyGraphics.render(image, fit: fit, indent: 2))
        #expect(images(.kitty).rendered(rgb: nil, jpeg: jpeg) == nil)
        #expect(images(.sixel).rendered(rgb: image, jpeg: nil) == Sixel.render(image, fit: fit, cell: CellSize(width: 3, height: 6)))
        #expect(images(.blocks(.palette256)).rendered(rgb: image, jpeg: nil) == HalfBlocks.render(image, fit: fit, depth: .palette256))
        // The columns asked for narrow the image; never wider than the terminal allows.
        #expect(images(.blocks(.trueColor)).rendered(rgb: image, jpeg: nil, columns: 1) == HalfBlocks.render(image, fit: ImageFit(columns: 1, rows: 1), depth: .trueColor))

        #expect(images(.iterm2).input(forWidth: 320, height: 240) == .jpeg)
        #expect(images(.blocks(.trueColor)).input(forWidth: 320, height: 240) == .pixels(width: 40, height: 30))
        #expect(images(.sixel).input(forWidth: 320, height: 240) == .pixels(width: 120, height: 90))
        #expect(images(.kitty).input(forWidth: 240, height: 320, columns: 20) == .pixels(width: 45, height: 60))
    }
}
