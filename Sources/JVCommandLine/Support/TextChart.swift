// SPDX-License-Identifier: Apache-2.0
/// Bars and sparklines in Unicode block characters, one column per character, for `jv stats`.
enum TextChart {
    private static let eighths: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"]
    private static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// A horizontal bar of `value` against `maximum`, `maximum` filling `width` columns, to
    /// the eighth of a column; a value above zero shows at least ▏, zero shows nothing.
    static func bar(_ value: Int, of maximum: Int, width: Int) -> String {
        guard value > 0, maximum > 0, width > 0 else { return "" }
        let eighthsWide = max(1, Int((Double(value) / Double(maximum) * Double(width * 8)).rounded()))
        let full = eighthsWide / 8, rest = eighthsWide % 8
        return String(repeating: "█", count: full) + (rest > 0 ? String(eighths[rest - 1]) : "")
    }

    /// One character per value, ▁ for `lowest` up to █ for `highest`, a value above `lowest`
    /// at least ▂ (▁ throughout when they are equal).
    static func sparkline(_ values: [Double], lowest: Double, highest: Double) -> String {
        String(values.map { value in
            guard highest > lowest else { return levels[0] }
            let level = Int(((value - lowest) / (highest - lowest) * Double(levels.count - 1)).rounded())
            return levels[min(levels.count - 1, max(value > lowest ? 1 : 0, level))]
        })
    }
}
