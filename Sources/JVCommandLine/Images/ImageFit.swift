// SPDX-License-Identifier: Apache-2.0
/// How many terminal cells an image takes: at most `maxColumns` wide and as many rows as make
/// a square of that width on the screen (half as many with the usual cells, twice as high as
/// wide), with the image's aspect ratio kept for cells of `cell`'s shape, and never wider than
/// its pixels (one column a pixel at most), so a tiny image is not blown up into blocks.
struct ImageFit: Equatable, Sendable {
    let columns: Int
    let rows: Int

    /// The default for `maxColumns` when the config file sets no `image_columns`.
    static let defaultColumns = 40

    init(width: Int, height: Int, maxColumns: Int, cell: CellSize = .assumed) {
        // Sizes as stated, clamped where no image or terminal goes, so the products below
        // cannot overflow whatever a file or a setting says.
        let (width, height) = (Self.clamped(width), Self.clamped(height))
        let cell = CellSize(width: Self.clamped(cell.width, to: 1 << 12), height: Self.clamped(cell.height, to: 1 << 12))
        let limit = Self.clamped(maxColumns, to: 1 << 12), maxRows = max(1, limit * cell.width / cell.height)
        var columns = min(limit, width)
        var rows = Self.rounded(columns * cell.width * height, cell.height * width)
        if rows > maxRows {
            rows = maxRows
            columns = min(columns, Self.rounded(maxRows * cell.height * width, cell.width * height))
        }
        self.init(columns: max(1, columns), rows: max(1, rows))
    }

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    private static func clamped(_ value: Int, to largest: Int = 1 << 24) -> Int {
        min(max(1, value), largest)
    }

    /// `numerator / denominator` rounded to the nearest whole number (halves up).
    private static func rounded(_ numerator: Int, _ denominator: Int) -> Int {
        (2 * numerator + denominator) / (2 * denominator)
    }
}
