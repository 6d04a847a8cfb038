// SPDX-License-Identifier: Apache-2.0
/// The config file's `images`: how images are drawn on a terminal — `auto` (as the terminal
/// answers, ``TerminalImages``), one protocol by name, or `none`.
enum ImageMode: String, CaseIterable, Sendable {
    case auto, kitty, iterm2, sixel, blocks, none
}

/// How an image is drawn on this terminal.
enum ImageProtocol: Equatable, Sendable {
    case kitty
    case iterm2
    case sixel
    case blocks(ColorDepth)
}
