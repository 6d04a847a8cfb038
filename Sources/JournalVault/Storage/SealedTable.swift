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

    /// The SQLite type a column is declared with.
    enum ColumnType: String, Sendable, Hashable {
        case integer = "INTEGER", text = "TEXT", blob = "BLOB"
    }

    /// A stored column: its position is its place in ``schema``.
    struct Column: Sendable, Hashable {
        let name: String
        let type: ColumnType
        let nullable: Bool

        static func integer(_ name: String, nullable: Bool = false) -> Column { Column(name: name, type: .integer, nullable: nullable) }
        static func text(_ name: String, nullable: Bool = false) -> Column { Column(name: name, type: .text, nullable: nullable) }
        static func blob(_ name: String) -> Column { Column(name: name, type: .blob, nullable: false) }
    }

    /// A column that refers to a record of another sealed table. Sync parks a row while the
    /// record it refers to is missing here (FORMAT.md §14.7); the database deletes or clears it
    /// with that record.
    struct Parent: Sendable, Hashable {
        enum OnDelete: String, Sendable, Hashable {
            case cascade = "CASCADE", setNull = "SET NULL"
        }

        let column: String
        let tableName: String
        let onDelete: OnDelete

        var table: SealedTable {
            guard let table = SealedTable.named(tableName) else { preconditionFailure("no sealed table \(tableName)") }
            return table
        }
    }

    /// Data computed from a row's plaintext with a vault key, stored beside it so that it can be
    /// queried without opening the row: `jv rekey` recomputes it under the new key, `jv check`
    /// holds it against the opened fields, sync rebuilds it for every row it adopts.
    enum Derived: Sendable, Hashable {
        /// Rows of `table` (`bidx`, `entry_seq`): a blind index of every tag of an entry
        /// (FORMAT.md §5).
        case tagIndex(table: String)
        /// The blind index of a knowledge node's type and name (FORMAT.md §1.6).
        case nodeKey(column: String)
        /// The blind index of a relation's type (FORMAT.md §1.7).
        case relationKey(column: String)
        /// The keyed tag of an attachment's content, from the digest in its sealed details
        /// (FORMAT.md §15.4): never from the content itself, so a rekey reads no chunk.
        case contentTag(column: String)
    }

    /// What sync and import keep of a version of a record that lost to another (FORMAT.md §14.7).
    enum ConflictCopyPolicy: Sendable, Hashable {
        /// The other version replaces it: nothing a person wrote is in it alone.
        case lastWriterWins
        /// The losing version is kept as a new record whose `field` starts with
        /// `Conflict copy of <noun> <id>: <why>` (its text differing from the winner's).
        case keepLosingText(field: String, noun: String)
    }

    let name: String
    /// The byte that names the table in a sync change (FORMAT.md §14.3). Never reused or changed.
    let wireID: UInt8
    /// What people call its records (the key of ``VaultInfo/counts``).
    let label: String
    /// An integer row key stored before the columns (not sent by sync, digested by the manifest).
    let rowKey: String?
    /// Every stored column but ``rowKey``, in the order rows are selected, inserted, digested and
    /// sent. `id` is first; `enc_meta` and the fields come last.
    let schema: [Column]
    /// The plaintext columns bound into every field's associated data, in FORMAT.md's order.
    let bound: [(column: String, kind: BoundKind)]
    /// The sealed fields, in the order they are sealed and stored.
    let fields: [String]
    let parents: [Parent]
    /// The columns of a unique index besides `id`: two records under different ids that agree on
    /// them are the same record made twice (sync keeps one, FORMAT.md §14.7). Empty for none.
    let identity: [String]
    /// Columns that are this device's own: sync neither sends their meaning nor applies them, and
    /// a record new here takes `valueOnInsert`.
    let deviceLocal: [(column: String, valueOnInsert: Int64)]
    let derived: [Derived]
    let conflictCopy: ConflictCopyPolicy
    /// The typed row of the table.
    let rowType: any SealedRecordRow.Type

    // Computed once: the hot paths (listing, search, check, import) read them per row.
    /// ``schema``'s names.
    let columns: [String]
    /// `SELECT` list of every column, in ``columns`` order.
    let selection: String
    /// `INSERT` of a whole row, arguments in ``columns`` order.
    let insertSQL: String
    /// `UPDATE` of every column but `id`, arguments in ``columns`` order without `id`, then `id`.
    let updateSQL: String
    let idIndex: Int
    let encMetaIndex: Int
    let fieldIndices: [Int]
    let boundIndices: [(index: Int, kind: BoundKind)]
    private let positions: [String: Int]

    init(name: String, wireID: UInt8, label: String, rowKey: String? = nil, schema: [Column],
         bound: [(column: String, kind: BoundKind)], fields: [String], parents: [Parent] = [], identity: [String] = [],
         deviceLocal: [(column: String, valueOnInsert: Int64)] = [], derived: [Derived] = [],
         conflictCopy: ConflictCopyPolicy = .lastWriterWins, rowType: any SealedRecordRow.Type) {
        self.name = name
        self.wireID = wireID
        self.label = label
        self.rowKey = rowKey
        self.schema = schema
        self.bound = bound
        self.fields = fields
        self.parents = parents
        self.identity = identity
        self.deviceLocal = deviceLocal
        self.derived = derived
        self.conflictCopy = conflictCopy
        self.rowType = rowType
        columns = schema.map(\.name)
        let positions = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        self.positions = positions
        func position(_ column: String) -> Int {
            guard let index = positions[column] else { preconditionFailure("\(name) has no column \(column)") }
            return index
        }
        selection = columns.joined(separator: ", ")
        insertSQL = "INSERT INTO \(name) (\(selection)) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        updateSQL = "UPDATE \(name) SET \(columns.filter { $0 != "id" }.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"
        idIndex = position("id")
        encMetaIndex = position("enc_meta")
        fieldIndices = fields.map(position)
        boundIndices = bound.map { (position($0.column), $0.kind) }
    }

    static func == (lhs: SealedTable, rhs: SealedTable) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// The position of `column` in ``columns``.
    func index(of column: String) -> Int {
        guard let index = positions[column] else { preconditionFailure("\(name) has no column \(column)") }
        return index
    }

    /// The tables whose rows refer to this one's, and through which columns.
    var children: [(table: SealedTable, column: String)] {
        Self.all.flatMap { table in table.parents.filter { $0.tableName == name }.map { (table, $0.column) } }
    }

    static let entry = SealedTable(
        name: "entry", wireID: 0, label: "entries", rowKey: "seq",
        schema: [.text("id"), .integer("created_at"), .integer("modified_at"), .integer("utc_offset"), .text("local_day"),
                 .integer("version"), .integer("starred"), .blob("enc_meta"), .blob("content"), .blob("tags")],
        bound: [("created_at", .integer), ("modified_at", .integer), ("utc_offset", .integer), ("version", .integer), ("starred", .integer)],
        fields: ["content", "tags"],
        derived: [.tagIndex(table: "entry_tag")],
        conflictCopy: .keepLosingText(field: "content", noun: "entry"),
        rowType: EncryptedEntryRow.self)

    static let analysis = SealedTable(
        name: "analysis", wireID: 1, label: "analyses",
        schema: [.text("id"), .text("entry_id"), .text("model"), .integer("processed_at"), .integer("utc_offset"), .integer("version"),
                 .blob("enc_meta"), .blob("payload")],
        bound: [("entry_id", .text), ("model", .text), ("processed_at", .integer), ("utc_offset", .integer), ("version", .integer)],
        fields: ["payload"],
        parents: [Parent(column: "entry_id", tableName: "entry", onDelete: .cascade)],
        rowType: AnalysisRow.self)

    static let knowledgeNode = SealedTable(
        name: "knowledge_node", wireID: 2, label: "nodes",
        schema: [.text("id"), .text("type"), .integer("created_at"), .blob("node_key"), .blob("enc_meta"), .blob("name"), .blob("metadata")],
        bound: [("type", .text), ("created_at", .integer), ("node_key", .hexText)],
        fields: ["name", "metadata"],
        identity: ["node_key"],
        derived: [.nodeKey(column: "node_key")],
        rowType: NodeRow.self)

    static let knowledgeRelation = SealedTable(
        name: "knowledge_relation", wireID: 3, label: "relations",
        schema: [.text("id"), .text("from_node"), .text("to_node"), .text("entry_id", nullable: true), .integer("created_at"),
                 .blob("relation_key"), .blob("enc_meta"), .blob("relation")],
        bound: [("from_node", .text), ("to_node", .text), ("entry_id", .text), ("created_at", .integer), ("relation_key", .hexText)],
        fields: ["relation"],
        parents: [Parent(column: "from_node", tableName: "knowledge_node", onDelete: .cascade),
                  Parent(column: "to_node", tableName: "knowledge_node", onDelete: .cascade),
                  Parent(column: "entry_id", tableName: "entry", onDelete: .cascade)],
        identity: ["from_node", "to_node", "relation_key", "entry_id"],
        derived: [.relationKey(column: "relation_key")],
        rowType: RelationRow.self)

    static let chatThread = SealedTable(
        name: "chat_thread", wireID: 4, label: "threads",
        schema: [.text("id"), .integer("is_active"), .integer("created_at"), .integer("utc_offset"), .integer("updated_at"),
                 .integer("last_message_at", nullable: true), .blob("enc_meta"), .blob("title"), .blob("metadata")],
        bound: [("created_at", .integer), ("utc_offset", .integer), ("updated_at", .integer), ("last_message_at", .integer)],
        fields: ["title", "metadata"],
        deviceLocal: [("is_active", 0)],
        rowType: ThreadRow.self)

    static let chatMessage = SealedTable(
        name: "chat_message", wireID: 5, label: "messages",
        schema: [.text("id"), .text("thread_id"), .text("role"), .integer("timestamp"), .integer("utc_offset"),
                 .text("entry_id", nullable: true), .blob("enc_meta"), .blob("content"), .blob("metadata")],
        bound: [("thread_id", .text), ("role", .text), ("timestamp", .integer), ("utc_offset", .integer)],
        fields: ["content", "metadata"],
        parents: [Parent(column: "thread_id", tableName: "chat_thread", onDelete: .cascade),
                  Parent(column: "entry_id", tableName: "entry", onDelete: .setNull)],
        conflictCopy: .keepLosingText(field: "content", noun: "message"),
        rowType: MessageRow.self)

    static let attachmentBlob = SealedTable(
        name: "attachment_blob", wireID: 7, label: "attachment contents",
        schema: [.text("id"), .blob("content_tag"), .text("stream_id"), .integer("created_at"), .integer("stored_size"),
                 .integer("chunk_count"), .blob("enc_meta"), .blob("key"), .blob("details"), .blob("thumbnail")],
        bound: [("stream_id", .text), ("created_at", .integer), ("stored_size", .integer), ("chunk_count", .integer),
                ("content_tag", .hexText)],
        fields: ["key", "details", "thumbnail"],
        identity: ["content_tag"],
        derived: [.contentTag(column: "content_tag")],
        rowType: AttachmentBlobRow.self)

    static let attachment = SealedTable(
        name: "attachment", wireID: 6, label: "attachments",
        schema: [.text("id"), .text("entry_id"), .text("blob_id"), .integer("created_at"), .blob("enc_meta"), .blob("name")],
        bound: [("entry_id", .text), ("blob_id", .text), ("created_at", .integer)],
        fields: ["name"],
        parents: [Parent(column: "entry_id", tableName: "entry", onDelete: .cascade),
                  Parent(column: "blob_id", tableName: "attachment_blob", onDelete: .cascade)],
        rowType: AttachmentRow.self)

    static let measure = SealedTable(
        name: "measure", wireID: 8, label: "measures",
        schema: [.text("id"), .text("entry_id"), .blob("enc_meta"), .blob("fields")],
        bound: [("entry_id", .text)],
        fields: ["fields"],
        parents: [Parent(column: "entry_id", tableName: "entry", onDelete: .cascade)],
        identity: ["entry_id"],
        rowType: MeasureRow.self)

    /// Every sealed table, parents before children (the order rows are walked, restored and
    /// digested in: FORMAT.md §11). An attachment's blob is its parent, so it comes first
    /// although its wire id is the greater.
    static let all: [SealedTable] = [.entry, .analysis, .knowledgeNode, .knowledgeRelation, .chatThread, .chatMessage,
                                     .attachmentBlob, .attachment, .measure]

    static func named(_ name: String) -> SealedTable? { all.first { $0.name == name } }

    /// The table a sync change's `table` byte names (FORMAT.md §14.3).
    static func wire(_ id: UInt8) -> SealedTable? { all.first { $0.wireID == id } }
}

/// A table the row-set manifest covers (FORMAT.md §11): every sealed table, with the integer row
/// key where the table has one, the tag index derived from entries, and the chunks of the
/// attachments' contents.
struct ManifestedTable: Sendable, Hashable {
    let name: String
    /// The columns digested, in order: all of them, so no column that carries meaning is left out.
    let columns: [String]
    /// What every row digest of this table starts with (``RowDigest``).
    let digestHeader: [UInt8]

    /// A sealed table's rows. The entry digest also covers `entry.seq`, which the tag index
    /// refers to: a tag row moved to another entry, or two entries' row keys swapped, changes a digest.
    init(_ table: SealedTable) {
        self.init(name: table.name, columns: (table.rowKey.map { [$0] } ?? []) + table.columns)
    }

    init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
        digestHeader = RowDigest.header(table: name, columnCount: columns.count)
    }

    static let entry = ManifestedTable(.entry)
    static let entryTag = ManifestedTable(name: "entry_tag", columns: ["bidx", "entry_seq"])
    static let attachmentChunk = ManifestedTable(name: "attachment_chunk", columns: ["stream_id", "idx", "data"])

    /// The tables a manifest listed before attachments (schema 8): the sealed tables of then, and
    /// the tag index derived from entries' rows (``SealedTable/Derived/tagIndex(table:)``). A
    /// manifest still lists only these while the attachment tables are empty (FORMAT.md §11.2).
    static let beforeAttachments: [ManifestedTable] =
        [SealedTable.entry, .analysis, .knowledgeNode, .knowledgeRelation, .chatThread, .chatMessage].map(ManifestedTable.init) + [entryTag]
    /// The attachments' tables: blobs, attachments, and the blobs' chunks.
    static let attachments: [ManifestedTable] = [ManifestedTable(.attachmentBlob), ManifestedTable(.attachment), attachmentChunk]
    /// The tables of schema 9: the entries' measures.
    static let measures: [ManifestedTable] = [ManifestedTable(.measure)]

    /// Every covered table, in the manifest's order.
    static let all: [ManifestedTable] = beforeAttachments + attachments + measures

    /// The lists a stored manifest may hold (FORMAT.md §11.2), shortest first: the tables of a
    /// schema, and before them those of every earlier one. A manifest lists the shortest whose
    /// tables hold every row, so a vault that uses no newer table keeps the bytes it had.
    static let listings: [[ManifestedTable]] = [beforeAttachments, beforeAttachments + attachments, all]

    /// The tables whose rows a reader counts as it opens the vault (FORMAT.md §11.3): all but the
    /// attachments' content, blobs and chunks. Those are reached only through an attachment row
    /// and read whole wherever one is read — its blob, the number of its chunks and each chunk —
    /// so a row of them removed or added hides nothing from a listing; and their counts grow with
    /// every photo, which every command would pay for as it opens (an index of every chunk read).
    static let countedAtOpen: [ManifestedTable] = all.filter { ![SealedTable.attachmentBlob.name, attachmentChunk.name].contains($0.name) }

    var selection: String { columns.joined(separator: ", ") }
}
