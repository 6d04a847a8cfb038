// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import Testing

/// `jv stats`' bars and sparklines: widths to the eighth of a column, levels from lowest to highest.
@Suite("Text charts", .tags(.inProcess))
struct TextChartTests {
    @Test("a bar fills the width at the maximum, rounds to eighths, shows ▏ for any value above zero")
    func bars() {
        #expect(TextChart.bar(10, of: 10, width: 5) == "█████")
        #expect(TextChart.bar(5, of: 10, width: 5) == "██▌")
        #expect(TextChart.bar(1, of: 10, width: 1) == "▏")
        #expect(TextChart.bar(1, of: 1000, width: 10) == "▏")
        #expect(TextChart.bar(0, of: 10, width: 5) == "" && TextChart.bar(3, of: 0, width: 5) == "")
        for value in 0...64 { #expect(TextChart.bar(value, of: 64, width: 8).count <= 8) }
    }

    @Test("a sparkline has one character per value, ▁ at the lowest, █ at the highest, at least ▂ above the lowest")
    func sparklines() {
        #expect(TextChart.sparkline([0, 1, 7, 0, 3.5], lowest: 0, highest: 7) == "▁▂█▁▅")
        #expect(TextChart.sparkline([-1, 0, 1], lowest: -1, highest: 1) == "▁▅█")
        #expect(TextChart.sparkline([2, 2], lowest: 2, highest: 2) == "▁▁")
        #expect(TextChart.sparkline([], lowest: 0, highest: 1) == "")
    }
}
