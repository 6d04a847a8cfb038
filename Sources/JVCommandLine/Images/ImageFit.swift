// SPDX-License-Identifier: Apache-2.0
/// How many terminal cells an image takes: at most `maxColumns` wide and `maxColumns / 2` rows
/// high — a square on the screen, since a cell is about twice as high as it is wide — with the
/// image's aspect ratio kept, and never wider than its pixels (one column a pixel at most), so
/// a tiny image is not blown up into blocks.
struct ImageFit: Equatable, Sendable {
    let columns: Int
    let rows: Int

    /// The default for `maxColumns` when the config file sets no `image_columns`.
    static let defaultColumns = 40

    init(width: Int, height: Int, maxColumns: Int) {
        let limit = max(1, maxColumns), maxRows = max(1, limit / 2)
        // Rows of a cell hold two pixels' height for one pixel's width.
        var columns = min(limit, width)
        var rows = Self.rounded(columns * height, 2 * width)
        if rows > maxRows {
            rows = maxRows
            columns = min(columns, Self.rounded(2 * maxRows * width, height))
        }
        self.init(columns: max(1, columns), rows: max(1, rows))
    }

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// `numerator / denominator` rounded to the nearest whole number (halves up).
    private static func rounded(_ numerator: Int, _ denominator: Int) -> Int {
        (2 * numerator + denominator) / (2 * denominator)
    }
}
