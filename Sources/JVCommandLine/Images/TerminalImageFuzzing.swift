// SPDX-License-Identifier: Apache-2.0
/// The image code's readers of bytes jv did not write, for the fuzz targets of `jv-fuzz`
/// (another module, hence public): the terminal's answers to ``TerminalProbe`` (anything that
/// can write to the terminal, a program run before jv or a file shown with `cat`, can put bytes
/// there) and the size in a thumbnail's JPEG header (made by `jv-thumbnail` from a file someone
/// sent, and read back from a vault that may have been tampered with). Not for anything but fuzzing.
///
/// ```swift
/// let answers = TerminalImageFuzzing.terminalAnswers(Array("\u{1B}[?62;4c".utf8))
/// // (kittyGraphics: false, sixel: true, version: nil, complete: true)
/// ```
public enum TerminalImageFuzzing {
    /// What ``TerminalAnswers`` reads from `bytes`.
    public static func terminalAnswers(_ bytes: [UInt8]) -> (kittyGraphics: Bool, sixel: Bool, version: String?, complete: Bool) {
        let answers = TerminalAnswers(parsing: bytes)
        return (answers.kittyGraphics, answers.sixel, answers.version, answers.complete)
    }

    /// The width and height ``ITermImage`` reads from a JPEG's frame header.
    public static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        ITermImage.size(ofJPEG: bytes)
    }
}
