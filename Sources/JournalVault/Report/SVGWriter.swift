// SPDX-License-Identifier: Apache-2.0
/// jv's own small writer of SVG, for the report's charts (``SVGChart``). jv draws its charts
/// itself rather than with a charting library: no dependency to vet and update, no script in
/// a file that holds decrypted journal text (the report runs none, and its Content-Security-
/// Policy would refuse one), and an output a person can read and check — every mark is a plain
/// element whose numbers are the data's, carried again in `data-value`.
///
/// Every attribute value and text is escaped (``MarkupText``); numbers are written the same in
/// every locale: a point for decimals, at most two of them, no exponent, no grouping.
/// Element and attribute names are jv's own, never user text.
///
/// ```swift
/// var svg = SVGWriter(width: 100, height: 20, label: "Words per month")
/// svg.element("rect", ["x": 0, "y": 5, "width": 12.5, "height": 15, "data-value": 310], title: "2026-01: 310 words")
/// svg.text("Jan", ["x": 6.25, "y": 20])
/// svg.markup   // "<svg xmlns=… viewBox=\"0 0 100 20\" …><rect x=\"0\" … data-value=\"310\"><title>2026-01: 310 words</title></rect>…</svg>"
/// ```
public struct SVGWriter: Sendable {
    /// An attribute's value: a number (written by ``number(_:)``) or text (escaped).
    public enum Value: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
        case number(Double)
        case text(String)

        public init(stringLiteral value: String) { self = .text(value) }
        public init(integerLiteral value: Int) { self = .number(Double(value)) }
        public init(floatLiteral value: Double) { self = .number(value) }

        var written: String {
            switch self {
            case .number(let value): SVGWriter.number(value)
            case .text(let text): MarkupText.escaped(text)
            }
        }
    }

    public let width: Double
    public let height: Double
    /// What the chart shows, for screen readers (`aria-label`).
    public let label: String
    private var body = ""

    public init(width: Double, height: Double, label: String) {
        self.width = width
        self.height = height
        self.label = label
    }

    /// An empty element (`rect`, `circle`, `line`, `polyline`), with a tooltip when `title` is given.
    /// Attributes are written in name order, so the same chart is the same bytes.
    public mutating func element(_ name: String, _ attributes: [String: Value], title: String? = nil) {
        body += "<\(name)\(Self.written(attributes))"
        if let title {
            body += "><title>\(MarkupText.escaped(title))</title></\(name)>"
        } else {
            body += "/>"
        }
    }

    /// A `text` element.
    public mutating func text(_ text: String, _ attributes: [String: Value]) {
        body += "<text\(Self.written(attributes))>\(MarkupText.escaped(text))</text>"
    }

    /// The document: an `svg` element sized in CSS pixels, scaling with its box (`viewBox`).
    public var markup: String {
        let size = "width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\""
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" \(size) role=\"img\" aria-label=\"\(MarkupText.escaped(label))\">"
            + body + "</svg>"
    }

    /// `value` as SVG and `data-value` take it, whatever the locale: `12`, `-0.5`, `3.14`
    /// (rounded to two decimals); a value that is not finite is written `0`.
    ///
    /// ```swift
    /// SVGWriter.number(1234.5678)   // "1234.57"
    /// SVGWriter.number(-0.001)      // "0"
    /// ```
    public static func number(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "0" }
        let hundredths = Int64((value * 100).rounded())
        guard hundredths != 0 else { return "0" }
        let magnitude = hundredths.magnitude
        var text = (hundredths < 0 ? "-" : "") + String(magnitude / 100)
        let fraction = magnitude % 100
        if fraction != 0 {
            text += "." + (fraction < 10 ? "0\(fraction)" : (fraction % 10 == 0 ? "\(fraction / 10)" : "\(fraction)"))
        }
        return text
    }

    private static func written(_ attributes: [String: Value]) -> String {
        attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\"\($0.value.written)\"" }.joined()
    }
}
