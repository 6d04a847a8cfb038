// SPDX-License-Identifier: Apache-2.0
/// A JSON document written a piece at a time, byte for byte as ``JSONValue/serialized(pretty:)``
/// writes the whole: a listing or an export prints its array while the elements are still
/// being decrypted, and the printed text is the same as if they had been gathered first.
/// Each call returns the text to append; containers are closed innermost first.
///
/// ```swift
/// var json = JSONStreamWriter(pretty: true)
/// var text = json.openArray()
/// for entry in entries { text += json.value(entry.json) }
/// text += json.close()   // == JSONValue.array(entries.map(\.json)).serialized(pretty: true)
/// ```
public struct JSONStreamWriter: Sendable {
    private let pretty: Bool
    /// The open containers, outermost first: their closing bracket and how many values they hold.
    private var open: [(close: String, count: Int)] = []

    public init(pretty: Bool) {
        self.pretty = pretty
    }

    /// Opens an array: the document itself, an element of the open array, or the member `name`
    /// of the open object.
    public mutating func openArray(_ name: String? = nil) -> String {
        let text = start(name) + "["
        open.append(("]", 0))
        return text
    }

    /// Opens an object, placed as ``openArray(_:)`` places an array.
    public mutating func openObject(_ name: String? = nil) -> String {
        let text = start(name) + "{"
        open.append(("}", 0))
        return text
    }

    /// A whole value, placed as ``openArray(_:)`` places an array.
    public mutating func value(_ value: JSONValue, _ name: String? = nil) -> String {
        var text = start(name)
        value.write(to: &text, pretty: pretty, indent: open.count)
        return text
    }

    /// A value serialized beforehand (elsewhere, or on another thread) by
    /// ``JSONValue/serialized(pretty:depth:)`` with this writer's `pretty` and ``depth``.
    public mutating func value(serialized text: String, _ name: String? = nil) -> String {
        start(name) + text
    }

    /// How many containers are open: the `depth` a value written next is serialized at.
    public var depth: Int { open.count }

    /// Closes the innermost open container.
    public mutating func close() -> String {
        guard let container = open.popLast() else { return "" }
        guard container.count > 0, pretty else { return container.close }
        return "\n" + String(repeating: "  ", count: open.count) + container.close
    }

    /// The separator and indentation before the next value of the innermost container, and its name.
    private mutating func start(_ name: String?) -> String {
        guard let depth = open.indices.last else { return "" }
        var text = open[depth].count > 0 ? "," : ""
        open[depth].count += 1
        if pretty { text += "\n" + String(repeating: "  ", count: depth + 1) }
        if let name {
            text += JSONValue.string(name).serialized() + (pretty ? ": " : ":")
        }
        return text
    }
}
