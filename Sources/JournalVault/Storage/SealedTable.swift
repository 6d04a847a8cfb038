// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The one description of every table whose rows the vault seals or derives from sealed rows
/// (FORMAT.md §1 and §4): which columns a row has, which are sealed fields, and which plaintext
/// columns the fields' associated data binds.
///
/// The walks over "every record of every table" — `jv check`, the row-set manifest, `jv rekey`,
/// backup verification — are written once over these descriptions; the typed rows of each
/// feature (``EncryptedEntryRow`` and the others) take their column lists from here.
///
/// ```swift
/// for table in SealedTable.all { print(table.name, table.fields) }
/// ```
struct SealedTable: Sendable, Hashable {
    /// How a plaintext column enters the associated data (FORMAT.md §4.4).
    enum BoundKind: Sendable, Hashable {
        /// An integer column (`0x01 ‖ i64`), or NULL where the column allows it.
        case integer
        /// A text column (`0x02 ‖ u32 len ‖ UTF-8`), or NULL where the column allows it.
        case text
        /// A blob column bound as the text of its lower-case hexadecimal digits.
        case hexText
    }

    let name: String
    /// Every stored column, in the order rows are selected, inserted and digested. `id` is
    /// among them; `enc_meta` and the fields come last.
    let columns: [String]
    /// The plaintext columns bound into every field's associated data, in FORMAT.md's order.
    let bound: [(column: String, kind: BoundKind)]
    /// The sealed fields, in the order they are sealed and stored.
    let fields: [String]

    static func == (lhs: SealedTable, rhs: SealedTable) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// `SELECT` list of every column, in ``columns`` order.
    var selection: String { columns.joined(separator: ", ") }

    /// `INSERT` of a whole row, arguments in ``columns`` order.
    var insertSQL: String {
        "INSERT INTO \(name) (\(selection)) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
    }

    /// Positions in ``columns``.
    var idIndex: Int { index(of: "id") }
    var encMetaIndex: Int { index(of: "enc_meta") }
    var fieldIndices: [Int] { fields.map(index(of:)) }
    var boundIndices: [(index: Int, kind: BoundKind)] { bound.map { (index(of: $0.column), $0.kind) } }

    func index(of column: String) -> Int {
        guard let index = columns.firstIndex(of: column) else { preconditionFailure("\(name) has no column \(column)") }
        return index
    }

    static let entry = SealedTable(
        name: "entry",
        columns: ["id", "created_at", "modified_at", "utc_offset", "local_day", "version", "starred", "enc_meta", "content", "tags"],
        bound: [("created_at", .integer), ("modified_at", .integer), ("utc_offset", .integer), ("version", .integer), ("starred", .integer)],
        fields: ["content", "tags"])

    static let analysis = SealedTable(
        name: "analysis",
        columns: ["id", "entry_id", "model", "processed_at", "utc_offset", "version", "enc_meta", "payload"],
        bound: [("entry_id", .text), ("model", .text), ("processed_at", .integer), ("utc_offset", .integer), ("version", .integer)],
        fields: ["payload"])

    static let knowledgeNode = SealedTable(
        name: "knowledge_node",
        columns: ["id", "type", "created_at", "node_key", "enc_meta", "name", "metadata"],
        bound: [("type", .text), ("created_at", .integer), ("node_key", .hexText)],
        fields: ["name", "metadata"])

    static let knowledgeRelation = SealedTable(
        name: "knowledge_relation",
        columns: ["id", "from_node", "to_node", "entry_id", "created_at", "relation_key", "enc_meta", "relation"],
        bound: [("from_node", .text), ("to_node", .text), ("entry_id", .text), ("created_at", .integer), ("relation_key", .hexText)],
        fields: ["relation"])

    static let chatThread = SealedTable(
        name: "chat_thread",
        columns: ["id", "is_active", "created_at", "utc_offset", "updated_at", "last_message_at", "enc_meta", "title", "metadata"],
        bound: [("created_at", .integer), ("utc_offset", .integer), ("updated_at", .integer), ("last_message_at", .integer)],
        fields: ["title", "metadata"])

    static let chatMessage = SealedTable(
        name: "chat_message",
        columns: ["id", "thread_id", "role", "timestamp", "utc_offset", "entry_id", "enc_meta", "content", "metadata"],
        bound: [("thread_id", .text), ("role", .text), ("timestamp", .integer), ("utc_offset", .integer)],
        fields: ["content", "metadata"])

    /// Every sealed table, parents before children (the order rows are walked and restored in).
    static let all: [SealedTable] = [.entry, .analysis, .knowledgeNode, .knowledgeRelation, .chatThread, .chatMessage]
}

/// A table the row-set manifest covers (FORMAT.md §11): every sealed table, with the integer row
/// key where the table has one, and the tag index derived from entries.
struct ManifestedTable: Sendable, Hashable {
    let name: String
    /// The columns digested, in order: all of them, so no column that carries meaning is left out.
    let columns: [String]
    /// What every row digest of this table starts with (``RowDigest``).
    let digestHeader: [UInt8]

    /// A sealed table's rows. The entry digest also covers `entry.seq`, which the tag index
    /// refers to: a tag row moved to another entry, or two entries' row keys swapped, changes a digest.
    init(_ table: SealedTable) {
        self.init(name: table.name, columns: table == .entry ? ["seq"] + table.columns : table.columns)
    }

    init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
        digestHeader = RowDigest.header(table: name, columnCount: columns.count)
    }

    static let entry = ManifestedTable(.entry)
    static let entryTag = ManifestedTable(name: "entry_tag", columns: ["bidx", "entry_seq"])

    static let all: [ManifestedTable] = SealedTable.all.map(ManifestedTable.init) + [entryTag]

    var selection: String { columns.joined(separator: ", ") }
}
