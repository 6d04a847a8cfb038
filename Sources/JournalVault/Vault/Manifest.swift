// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB
import VaultCrypto

/// The row-set manifest (FORMAT.md §11): a keyed commitment to the set of every row of every
/// ``ManifestedTable``, so that a deleted row, a row rolled back to an older revision, or a
/// deleted row put back is seen, which the per-record AEAD alone cannot see.
///
/// Per table it keeps the number of rows and the sum modulo 2²⁵⁶ of their keyed digests; a
/// write adds the digest of each new row and subtracts that of each old one (O(1) per row), and
/// the whole state carries a counter of write transactions and a MAC under the manifest key.
///
/// ```swift
/// var manifest = Manifest.empty(keyVersion: 1)
/// manifest.tables["entry"]?.add(try RowDigest.of(values, in: .entry, key: key))
/// ```
struct Manifest: Equatable, Sendable {
    /// The format written; format 1 (without ``instance`` and ``syncDevice``) is still read.
    static let format: UInt8 = 2
    static let macLength = 32
    private static let macDomain = Array("JVLT-manifest".utf8)

    /// One table's part: how many rows, and the sum of their digests.
    struct TableState: Equatable, Sendable {
        var count: UInt64 = 0
        var sum = DigestSum()

        mutating func add(_ digest: DigestSum) {
            count &+= 1
            sum = sum.adding(digest)
        }

        mutating func remove(_ digest: DigestSum) {
            count &-= 1
            sum = sum.subtracting(digest)
        }

        /// Adds the rows another part counted.
        mutating func absorb(_ other: TableState) {
            count &+= other.count
            sum = sum.adding(other.sum)
        }
    }

    var keyVersion: UInt32
    /// Write transactions committed since the vault was made (or upgraded): the high-water mark.
    var counter: UInt64
    var tables: [String: TableState]
    /// This vault file's own id (format 2), under which its high-water mark is kept: a copy
    /// restored elsewhere gets a new one (``Manifest+Identity.swift``). Nil in format 1.
    var instance: UUID?
    /// The `sync_device` row, counted and digested like a table's rows (format 2): its device id
    /// and location are jv's, not the file's. Nil in format 1.
    var syncDevice: TableState?

    /// A manifest of no rows; of format 2 when it has an `instance`.
    static func empty(keyVersion: UInt32, instance: UUID? = nil) -> Manifest {
        Manifest(keyVersion: keyVersion, counter: 0,
                 tables: Dictionary(uniqueKeysWithValues: ManifestedTable.all.map { ($0.name, TableState()) }),
                 instance: instance, syncDevice: instance == nil ? nil : TableState())
    }

    /// The tables the stored form lists: the shortest of ``ManifestedTable/listings`` beyond
    /// which every table is empty, so that a vault without attachments or measures keeps the
    /// bytes it had (FORMAT.md §11.2).
    private var listedTables: [ManifestedTable] {
        let empty = TableState()
        return ManifestedTable.listings.first { listed in
            ManifestedTable.all.dropFirst(listed.count).allSatisfy { (tables[$0.name] ?? empty) == empty }
        } ?? ManifestedTable.all
    }

    /// `format u8 ‖ kv u32 ‖ counter u64 ‖ n u8 ‖ n × (u8 len ‖ table ‖ count u64 ‖ sum[32])`, tables
    /// in ``ManifestedTable/all`` order (``listedTables``), then in format 2 `instance[16] ‖ count u64 ‖ sum[32]` of
    /// `sync_device`; the MAC follows these bytes.
    private var body: [UInt8] {
        let listed = listedTables
        var writer = ByteWriter(capacity: 620)
        writer.u8(instance == nil ? 1 : Self.format)
        writer.u32(keyVersion)
        writer.u64(counter)
        writer.u8(UInt8(listed.count))
        for table in listed {
            let state = tables[table.name] ?? TableState()
            writer.shortString(table.name)
            writer.u64(state.count)
            writer.raw(state.sum.bytes)
        }
        if let instance {
            writer.raw(instance.bytes)
            writer.u64(syncDevice?.count ?? 0)
            writer.raw((syncDevice ?? TableState()).sum.bytes)
        }
        return writer.bytes
    }

    /// The stored form: the body and its MAC.
    func encoded(key: SecureBytes, vaultID: UUID) -> Data {
        let body = self.body
        return Data(body + Self.mac(body, key: key, vaultID: vaultID))
    }

    /// Parses and authenticates a stored manifest; nil when it is malformed or its MAC fails.
    init?(encoded data: Data, key: SecureBytes, vaultID: UUID) throws {
        let bytes = Array(data)
        guard bytes.count > Self.macLength else { return nil }
        let body = Array(bytes.dropLast(Self.macLength))
        guard Sodium.constantTimeEquals(Self.mac(body, key: key, vaultID: vaultID), Array(bytes.suffix(Self.macLength))) else { return nil }
        var reader = ByteReader(body)
        guard let format = reader.u8(), format == 1 || format == Self.format, let keyVersion = reader.u32(), let counter = reader.u64(),
              let n = reader.u8(), ManifestedTable.listings.map(\.count).contains(Int(n)) else { return nil }
        // Tables a manifest does not list are empty.
        var tables = Dictionary(uniqueKeysWithValues: ManifestedTable.all.map { ($0.name, TableState()) })
        for table in ManifestedTable.all.prefix(Int(n)) {
            guard let length = reader.u8(), let name = reader.raw(Int(length)), name == Array(table.name.utf8),
                  let count = reader.u64(), let sum = reader.raw(32) else { return nil }
            tables[table.name] = TableState(count: count, sum: DigestSum(bytes: sum))
        }
        var instance: UUID?
        var syncDevice: TableState?
        if format == Self.format {
            guard let id = reader.raw(16), let count = reader.u64(), let sum = reader.raw(32) else { return nil }
            instance = UUID(bytes: id)
            syncDevice = TableState(count: count, sum: DigestSum(bytes: sum))
        }
        guard reader.remaining == 0 else { return nil }
        self.init(keyVersion: keyVersion, counter: counter, tables: tables, instance: instance, syncDevice: syncDevice)
    }

    init(keyVersion: UInt32, counter: UInt64, tables: [String: TableState], instance: UUID? = nil, syncDevice: TableState? = nil) {
        self.keyVersion = keyVersion
        self.counter = counter
        self.tables = tables
        self.instance = instance
        self.syncDevice = syncDevice
    }

    /// A table left out of `tables` is empty, as in the stored form.
    static func == (lhs: Manifest, rhs: Manifest) -> Bool {
        let empty = TableState()
        return lhs.keyVersion == rhs.keyVersion && lhs.counter == rhs.counter && lhs.instance == rhs.instance
            && lhs.syncDevice == rhs.syncDevice
            && Set(lhs.tables.keys).union(rhs.tables.keys).allSatisfy { (lhs.tables[$0] ?? empty) == (rhs.tables[$0] ?? empty) }
    }

    private static func mac(_ body: [UInt8], key: SecureBytes, vaultID: UUID) -> [UInt8] {
        key.withUnsafeBytes { Blake2b.hash(macDomain + vaultID.bytes + body, key: $0, length: macLength) }
    }

    /// The digest of the row `statement` stands on, read in place: the table's
    /// ``ManifestedTable/columns`` are the statement's columns `positions` (default: from the first).
    static func digest(ofCurrentRowOf statement: Statement, in table: ManifestedTable, positions: [Int32]? = nil,
                       key: SecureBytes) throws -> DigestSum {
        var digest = try RowDigest(table: table.name, columnCount: table.columns.count, key: key)
        for position in positions ?? table.columns.indices.map(Int32.init) { digest.append(column: position, of: statement.sqliteStatement) }
        return try digest.finish()
    }
}

/// A 256-bit unsigned integer, big-endian on disk, for sums of row digests modulo 2²⁵⁶.
struct DigestSum: Equatable, Sendable {
    /// Most significant limb first.
    private var limbs: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init(bytes: [UInt8]) {
        precondition(bytes.count == 32)
        func limb(_ index: Int) -> UInt64 { bytes[index * 8..<index * 8 + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        limbs = (limb(0), limb(1), limb(2), limb(3))
    }

    var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 32)
        for limb in [limbs.0, limbs.1, limbs.2, limbs.3] { writer.u64(limb) }
        return writer.bytes
    }

    static func == (lhs: DigestSum, rhs: DigestSum) -> Bool { lhs.limbs == rhs.limbs }

    func adding(_ other: DigestSum) -> DigestSum {
        var result = DigestSum()
        var carry = false
        (result.limbs.3, carry) = Self.add(limbs.3, other.limbs.3, carry)
        (result.limbs.2, carry) = Self.add(limbs.2, other.limbs.2, carry)
        (result.limbs.1, carry) = Self.add(limbs.1, other.limbs.1, carry)
        (result.limbs.0, _) = Self.add(limbs.0, other.limbs.0, carry)
        return result
    }

    /// `self - other` modulo 2²⁵⁶: adding the two's complement.
    func subtracting(_ other: DigestSum) -> DigestSum {
        var complement = DigestSum()
        complement.limbs = (~other.limbs.0, ~other.limbs.1, ~other.limbs.2, ~other.limbs.3)
        var one = DigestSum()
        one.limbs.3 = 1
        return adding(complement.adding(one))
    }

    private static func add(_ a: UInt64, _ b: UInt64, _ carry: Bool) -> (UInt64, Bool) {
        let (partial, overflow1) = a.addingReportingOverflow(b)
        let (sum, overflow2) = partial.addingReportingOverflow(carry ? 1 : 0)
        return (sum, overflow1 || overflow2)
    }
}

extension Manifest {
    /// The triggers of migration 0005 that hand every row change to ``ManifestRecorder``.
    static let triggerNames: Set<String> = Set(ManifestedTable.all.flatMap { table in
        ["insert", "delete", "update"].map { "\(table.name)_manifest_\($0)" }
    })

    /// Whether the vault has a manifest row (vaults from before schema 5 get one at their first write).
    static func isStored(_ db: Database) throws -> Bool {
        try Data.fetchOne(db, sql: "SELECT data FROM manifest WHERE singleton = 1") != nil
    }

    /// The stored manifest, authenticated; nil when there is none. A manifest that does not
    /// authenticate, is of another key version, or lists another `sync_device` row than the
    /// file's, is ``VaultError/manifestDamaged(_:)``.
    static func load(_ db: Database, keys: VaultKeys) throws -> Manifest? {
        guard let data = try Data.fetchOne(db, sql: "SELECT data FROM manifest WHERE singleton = 1") else { return nil }
        guard let manifest = try Manifest(encoded: data, key: keys.manifestKey, vaultID: keys.vaultID) else {
            throw VaultError.manifestDamaged("the manifest does not authenticate")
        }
        guard manifest.keyVersion == keys.keyVersion else {
            throw VaultError.manifestDamaged("the manifest is of key version \(manifest.keyVersion), the vault of \(keys.keyVersion)")
        }
        try manifest.verifySyncDevice(db, keys: keys)
        return manifest
    }

    func save(_ db: Database, keys: VaultKeys) throws {
        try db.execute(sql: "INSERT INTO manifest (singleton, data) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET data = excluded.data",
                       arguments: [encoded(key: keys.manifestKey, vaultID: keys.vaultID)])
    }

    /// The manifest of the rows as they are now, read in full (`counter` and `instance` given by
    /// the caller). `only` limits it to some tables (the others are left out of `tables`).
    static func build(_ db: Database, keys: VaultKeys, counter: UInt64, instance: UUID = UUID(), only: Set<String>? = nil) throws -> Manifest {
        var manifest = Manifest(keyVersion: keys.keyVersion, counter: counter, tables: [:], instance: instance,
                                syncDevice: try syncDeviceState(db, keys: keys))
        for table in ManifestedTable.all where only?.contains(table.name) ?? true {
            var state = TableState()
            let statement = try db.makeStatement(sql: "SELECT \(table.selection) FROM \(table.name)")
            let rows = try Row.fetchCursor(statement)
            while try rows.next() != nil {
                state.add(try digest(ofCurrentRowOf: statement, in: table, key: keys.manifestKey))
            }
            manifest.tables[table.name] = state
        }
        return manifest
    }
}
