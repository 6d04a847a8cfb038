// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Images drawn inline on standard output, in the best way the terminal has: kitty graphics,
/// iTerm2's inline images, sixel, else half blocks in colour, else none. Never into a pipe or
/// a file, nor on `TERM=dumb`.
///
/// ```swift
/// if let images = TerminalImages.forStandardOutput(options: imageOptions, output: output) {
///     switch images.input(forWidth: 320, height: 240) {   // decode what it draws
///     case .jpeg: try images.draw(jpeg: thumbnail, to: stream)
///     case .pixels(let width, let height): try images.draw(rgb: decoded(thumbnail, width, height), to: stream)
///     }
/// }
/// ```
///
/// Choose it only when there is an image to draw, and not for `--json`: `auto` asks the
/// terminal (up to ``TerminalProbe/timeout``). Draw to an output that goes to the terminal
/// itself (`StandardOutput.with(pager: nil)`, or ``rendered(rgb:jpeg:columns:indent:)``'s bytes
/// written to standard output), never through a pager: `less` would show the escape sequences
/// as text.
struct TerminalImages: Sendable {
    let drawing: ImageProtocol
    /// The widest an image is drawn, in columns: the config file's `image_columns`, else
    /// ``ImageFit/defaultColumns``.
    let maxColumns: Int
    /// The terminal's width, which an image and its indent stay within.
    let terminalColumns: Int
    let cell: CellSize

    /// How images are drawn on standard output, or nil when they are not: `--no-images`,
    /// standard output not a terminal, `TERM=dumb`, the config file's `images = "none"`
    /// (unless `--images`), or `auto` on a terminal that can draw neither graphics nor colour.
    static func forStandardOutput(options: ImageOptions, output: Output) -> TerminalImages? {
        let config = try? Config.current
        let environment = ProcessInfo.processInfo.environment
        guard let drawing = chosen(setting: config?.images ?? .auto, flag: options.images, color: output.color,
                                   environment: environment, input: STDIN_FILENO, output: STDOUT_FILENO) else { return nil }
        var size = winsize()
        let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0
        let columns = known ? Int(size.ws_col) : environment["COLUMNS"].flatMap(Int.init) ?? 80
        let cell = known && size.ws_xpixel > 0 && size.ws_ypixel > 0 && size.ws_row > 0
            ? CellSize(width: Int(size.ws_xpixel) / Int(size.ws_col), height: Int(size.ws_ypixel) / Int(size.ws_row)) : .assumed
        return TerminalImages(drawing: drawing, maxColumns: config?.imageColumns ?? ImageFit.defaultColumns, terminalColumns: columns,
                              cell: cell.width > 0 && cell.height > 0 ? cell : .assumed)
    }

    /// How to draw on the terminal `output` (answers read from `input`), or nil for not at all.
    /// `setting` is the config file's `images`, `flag` `--images` (true) or `--no-images`
    /// (false), `color` whether jv prints colours there (``Output/color``: `NO_COLOR`, the
    /// config file's `color`, `--no-color`).
    static func chosen(setting: ImageMode, flag: Bool?, color: Bool, environment: [String: String],
                       input: Int32, output: Int32, timeout: Duration = TerminalProbe.timeout) -> ImageProtocol? {
        let term = environment["TERM"] ?? ""
        guard flag != false, isatty(output) == 1, term != "dumb" else { return nil }
        switch setting == .none && flag == true ? .auto : setting {
        case .none: return nil
        case .kitty: return .kitty
        case .iterm2: return .iterm2
        case .sixel: return .sixel
        case .blocks: return .blocks(colorDepth(environment) ?? .palette256)
        case .auto: break
        }
        // The Linux console shows what it does not understand, and draws no images.
        let answers = term.hasPrefix("linux") ? nil : TerminalProbe.ask(input: input, output: output, timeout: timeout)
        if answers?.kittyGraphics == true { return .kitty }
        let iTerm = ["iTerm.app", "WezTerm"].contains(environment["TERM_PROGRAM"] ?? "")
            || ["iTerm2", "WezTerm"].contains { answers?.version?.hasPrefix($0) == true }
        if iTerm { return .iterm2 }
        if answers?.sixel == true { return .sixel }
        // Half blocks are colour: off with the colours, unless asked for by --images.
        guard color || flag == true, let depth = colorDepth(environment) else { return nil }
        return .blocks(depth)
    }

    /// The colours the terminal says it shows: 24-bit (`COLORTERM`), 256 (`TERM`), else too few.
    static func colorDepth(_ environment: [String: String]) -> ColorDepth? {
        if ["truecolor", "24bit"].contains(environment["COLORTERM"] ?? "") { return .trueColor }
        return environment["TERM"]?.contains("256color") == true ? .palette256 : nil
    }

    /// What to give ``draw(rgb:jpeg:columns:indent:to:)`` for an image of `width` × `height`
    /// pixels: the JPEG (iTerm2 decodes it), or RGB pixels of the size drawn.
    enum Input: Equatable {
        case jpeg
        case pixels(width: Int, height: Int)
    }

    func input(forWidth width: Int, height: Int, columns: Int? = nil, indent: Int = 0) -> Input {
        switch drawing {
        case .iterm2:
            return .jpeg
        case .blocks:
            let fit = fit(width: width, height: height, columns: columns, indent: indent, cell: HalfBlocks.cell)
            return .pixels(width: fit.columns, height: 2 * fit.rows)
        case .kitty, .sixel:
            let fit = fit(width: width, height: height, columns: columns, indent: indent, cell: cell)
            return .pixels(width: fit.columns * cell.width, height: Sixel.pixelHeight(of: fit, cell: cell, width: width, height: height))
        }
    }

    /// The bytes that draw the image after `indent` spaces, ending with a line break: from
    /// `jpeg` for iTerm2, else from `rgb`; nil when the one needed is missing (an iTerm2
    /// terminal shows 24-bit colour, so half blocks stand in there for a missing or unreadable
    /// JPEG).
    func rendered(rgb: RGBImage?, jpeg: [UInt8]?, columns: Int? = nil, indent: Int = 0) -> [UInt8]? {
        if drawing == .iterm2, let jpeg, let size = ITermImage.size(ofJPEG: jpeg) {
            return ITermImage.render(jpeg: jpeg, fit: fit(width: size.width, height: size.height, columns: columns, indent: indent, cell: cell), indent: indent)
        }
        guard let rgb else { return nil }
        func fitted(_ cell: CellSize) -> ImageFit { fit(width: rgb.width, height: rgb.height, columns: columns, indent: indent, cell: cell) }
        switch drawing {
        case .iterm2: return HalfBlocks.render(rgb, fit: fitted(HalfBlocks.cell), depth: .trueColor, indent: indent)
        case .kitty: return KittyGraphics.render(rgb, fit: fitted(cell), indent: indent)
        case .sixel: return Sixel.render(rgb, fit: fitted(cell), cell: cell, indent: indent)
        case .blocks(let depth): return HalfBlocks.render(rgb, fit: fitted(HalfBlocks.cell), depth: depth, indent: indent)
        }
    }

    /// Draws the image (see ``rendered(rgb:jpeg:columns:indent:)``) on `output`, which must not
    /// be paging; nothing when the input it needs is missing.
    func draw(rgb: RGBImage? = nil, jpeg: [UInt8]? = nil, columns: Int? = nil, indent: Int = 0, to output: StandardOutput) throws {
        guard let bytes = rendered(rgb: rgb, jpeg: jpeg, columns: columns, indent: indent) else { return }
        try output.write(bytes)
    }

    /// The cells of `cell` pixels an image of `width` × `height` takes, after `indent` columns.
    private func fit(width: Int, height: Int, columns: Int?, indent: Int, cell: CellSize) -> ImageFit {
        ImageFit(width: width, height: height, maxColumns: min(columns ?? maxColumns, maxColumns, terminalColumns - indent), cell: cell)
    }
}
