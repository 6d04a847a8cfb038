// SPDX-License-Identifier: Apache-2.0
/// The reader of one Markdown note's text (``MarkdownNote``), for the fuzz target
/// `markdown-note` of `jv-fuzz` (another module, hence public): a folder of notes is anyone's
/// text, read before anything else is checked. Not for anything but fuzzing.
public enum MarkdownNoteFuzzing {
    /// Reads `bytes` as a note's text, as valid UTF-8 (the folder reader refuses anything else),
    /// and returns what is wrong with what was read, or nil: an embed names a file on one line,
    /// and a part's heading time is a time of day.
    public static func problem(reading bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let note = MarkdownNote(text)
        for part in note.parts {
            if let seconds = part.secondsOfDay, !(0..<86_400).contains(seconds) { return "a heading time of \(seconds) s" }
            if part.embeds.contains(where: { $0.target.isEmpty || $0.target.contains("\n") }) { return "an embed that names no file on one line" }
        }
        return nil
    }
}
