// SPDX-License-Identifier: Apache-2.0
import Foundation
import GRDB

extension UnlockedVault {
    /// Sends `digest`'s text to a local chat command (``ChatResponder``: the same request and
    /// answer as `jv chat ask`, with a system message asking for a reflection on the period) and
    /// stores its answer as the period's reflection by that model (``ChatResponder/model``, else
    /// the answer's, else "local"), replacing the one it had. If the command fails, nothing is
    /// stored and the error (``ChatResponderError``) says why without quoting the digest.
    ///
    /// ```swift
    /// let digest = try journal.digest(of: DigestPeriod(named: "2026-W48", kind: .week)!)
    /// let reflection = try journal.reflect(on: digest, with: ChatResponder(command: "examples/ollama-chat.sh", model: "llama3.2"))
    /// ```
    @discardableResult
    public func reflect(on digest: Digest, with responder: ChatResponder) throws -> DigestReflection {
        let text = digest.text
        let answer = try responder.answer(to: [(.system, Self.reflectionInstruction(digest)), (.user, text)], entries: [])
        return try storeReflection(DigestReflection(period: digest.period, model: responder.model ?? answer.model ?? "local", created: .now(),
                                                    text: answer.content, digestOfInput: digest.textDigest))
    }

    /// What the model is asked, before the digest.
    static func reflectionInstruction(_ digest: Digest) -> String {
        """
        The user's journal digest for the \(digest.periodLabel) (\(digest.period.first) to \(digest.period.last)) follows: \
        figures, tags, what analyses of the entries found, then the entries. Write the user a short reflection on this \
        period, addressing them as "you": what stood out, recurring themes and moods, the people in it, what changed, \
        and anything worth noticing. Plain prose, a few paragraphs at most.
        """
    }

    /// Stores `reflection`, replacing in the same transaction the one of its period and model
    /// (the same record: its next revision).
    @discardableResult
    public func storeReflection(_ reflection: DigestReflection) throws -> DigestReflection {
        var reflection = reflection
        reflection.text = try ContentRules.validated(reflection.text)
        try write { db in
            let stored = try DigestReflectionRow.fetchOne(id: reflection.id, db)
            let row = try DigestReflectionRow(reflection, meta: .rewriting(stored?.encMeta, keyVersion: keys.keyVersion), keys: keys)
            if stored == nil { try row.insert(db) } else { try row.update(db) }
        }
        return reflection
    }

    /// The reflections on `period` (every model's), oldest first; every reflection when nil.
    public func reflections(on period: DigestPeriod? = nil) throws -> [DigestReflection] {
        try database.read { db in
            let rows = if let period {
                try DigestReflectionRow.fetchAll(db, where: "period = ? AND start_day = ? AND end_day = ?",
                                                 arguments: [period.kind.rawValue, period.first.description, period.last.description],
                                                 orderedBy: "created_at, id")
            } else {
                try DigestReflectionRow.fetchAll(db, orderedBy: "start_day, created_at, id")
            }
            return try rows.map { try $0.decrypt(keys: keys) }
        }
    }

    /// The reflection `text` names (full id or a unique prefix of 4+ characters).
    public func resolveReflectionID(_ text: String) throws -> UUID {
        try database.read { db in try RecordID.resolve(text, table: DigestReflectionRow.table, kind: "reflection", db: db) }
    }

    public func reflection(id: UUID) throws -> DigestReflection {
        try database.read { db in
            guard let row = try DigestReflectionRow.fetchOne(id: id, db) else { throw VaultError.notFound(kind: "reflection", id: id.storageText) }
            return try row.decrypt(keys: keys)
        }
    }

    public func deleteReflection(id: UUID) throws {
        try write { db in
            try db.execute(sql: "DELETE FROM digest_reflection WHERE id = ?", arguments: [id.storageText])
            guard db.changesCount == 1 else { throw VaultError.notFound(kind: "reflection", id: id.storageText) }
        }
    }
}
