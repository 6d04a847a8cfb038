-- 0005 · The row-set manifest (FORMAT.md §11) and sealed knowledge relations.
--
-- Relations: their type is words an analyser wrote about a person's life, so it is now sealed
-- like every other AI-produced field (with the strength), and one relation per (from, to, type,
-- entry) is kept through a blind index, `relation_key`. Sealing needs the key, which a migration
-- does not have: existing relations wait in `legacy_relation` until the first unlocked write
-- seals them (and builds the manifest) in one transaction.
--
-- Manifest: one row, written by jv in the same transaction as every write. The triggers below
-- hand every inserted, updated or deleted row of every covered table (cascades included) to
-- `jv_manifest`, a function jv registers on its connections once the vault is unlocked: jv adds
-- the row's keyed digest to, or subtracts it from, the manifest before the transaction commits.
-- `jv_manifest_wants_rows()` is false only while jv inserts rows whose digests it has already
-- computed (bulk imports, on all cores) or rebuilds the manifest from every row afterwards.
-- Without the key there is no such function, so no write to these tables can happen unseen by
-- jv itself; an editor of the file can drop the triggers, which is what `jv check` is for.

CREATE TABLE legacy_relation AS SELECT id, from_node, to_node, type, strength, entry_id, created_at FROM knowledge_relation;
DROP TABLE knowledge_relation;

CREATE TABLE knowledge_relation (
    id           TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    from_node    TEXT    NOT NULL REFERENCES knowledge_node (id) ON DELETE CASCADE,
    to_node      TEXT    NOT NULL REFERENCES knowledge_node (id) ON DELETE CASCADE,
    entry_id     TEXT    REFERENCES entry (id) ON DELETE CASCADE,
    created_at   INTEGER NOT NULL,
    -- Blind index of the relation's type: one relation of a type between two nodes per entry.
    relation_key BLOB    NOT NULL CHECK (length(relation_key) = 8),
    enc_meta     BLOB    NOT NULL,
    relation     BLOB    NOT NULL
);
CREATE UNIQUE INDEX knowledge_relation_unique ON knowledge_relation (from_node, to_node, relation_key, entry_id);
CREATE INDEX knowledge_relation_to ON knowledge_relation (to_node);
CREATE INDEX knowledge_relation_by_entry ON knowledge_relation (entry_id);

CREATE TABLE manifest (
    singleton INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
    data      BLOB    NOT NULL
);


CREATE TRIGGER entry_manifest_insert AFTER INSERT ON entry WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'entry', NEW.seq, NEW.id, NEW.created_at, NEW.modified_at, NEW.utc_offset, NEW.local_day, NEW.version, NEW.starred, NEW.enc_meta, NEW.content, NEW.tags); END;
CREATE TRIGGER entry_manifest_delete AFTER DELETE ON entry WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'entry', OLD.seq, OLD.id, OLD.created_at, OLD.modified_at, OLD.utc_offset, OLD.local_day, OLD.version, OLD.starred, OLD.enc_meta, OLD.content, OLD.tags); END;
CREATE TRIGGER entry_manifest_update AFTER UPDATE ON entry WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'entry', OLD.seq, OLD.id, OLD.created_at, OLD.modified_at, OLD.utc_offset, OLD.local_day, OLD.version, OLD.starred, OLD.enc_meta, OLD.content, OLD.tags); SELECT jv_manifest('+', 'entry', NEW.seq, NEW.id, NEW.created_at, NEW.modified_at, NEW.utc_offset, NEW.local_day, NEW.version, NEW.starred, NEW.enc_meta, NEW.content, NEW.tags); END;

CREATE TRIGGER entry_tag_manifest_insert AFTER INSERT ON entry_tag WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'entry_tag', NEW.bidx, NEW.entry_seq); END;
CREATE TRIGGER entry_tag_manifest_delete AFTER DELETE ON entry_tag WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'entry_tag', OLD.bidx, OLD.entry_seq); END;
CREATE TRIGGER entry_tag_manifest_update AFTER UPDATE ON entry_tag WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'entry_tag', OLD.bidx, OLD.entry_seq); SELECT jv_manifest('+', 'entry_tag', NEW.bidx, NEW.entry_seq); END;

CREATE TRIGGER analysis_manifest_insert AFTER INSERT ON analysis WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'analysis', NEW.id, NEW.entry_id, NEW.model, NEW.processed_at, NEW.utc_offset, NEW.version, NEW.enc_meta, NEW.payload); END;
CREATE TRIGGER analysis_manifest_delete AFTER DELETE ON analysis WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'analysis', OLD.id, OLD.entry_id, OLD.model, OLD.processed_at, OLD.utc_offset, OLD.version, OLD.enc_meta, OLD.payload); END;
CREATE TRIGGER analysis_manifest_update AFTER UPDATE ON analysis WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'analysis', OLD.id, OLD.entry_id, OLD.model, OLD.processed_at, OLD.utc_offset, OLD.version, OLD.enc_meta, OLD.payload); SELECT jv_manifest('+', 'analysis', NEW.id, NEW.entry_id, NEW.model, NEW.processed_at, NEW.utc_offset, NEW.version, NEW.enc_meta, NEW.payload); END;

CREATE TRIGGER knowledge_node_manifest_insert AFTER INSERT ON knowledge_node WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'knowledge_node', NEW.id, NEW.type, NEW.created_at, NEW.node_key, NEW.enc_meta, NEW.name, NEW.metadata); END;
CREATE TRIGGER knowledge_node_manifest_delete AFTER DELETE ON knowledge_node WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'knowledge_node', OLD.id, OLD.type, OLD.created_at, OLD.node_key, OLD.enc_meta, OLD.name, OLD.metadata); END;
CREATE TRIGGER knowledge_node_manifest_update AFTER UPDATE ON knowledge_node WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'knowledge_node', OLD.id, OLD.type, OLD.created_at, OLD.node_key, OLD.enc_meta, OLD.name, OLD.metadata); SELECT jv_manifest('+', 'knowledge_node', NEW.id, NEW.type, NEW.created_at, NEW.node_key, NEW.enc_meta, NEW.name, NEW.metadata); END;

CREATE TRIGGER knowledge_relation_manifest_insert AFTER INSERT ON knowledge_relation WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'knowledge_relation', NEW.id, NEW.from_node, NEW.to_node, NEW.entry_id, NEW.created_at, NEW.relation_key, NEW.enc_meta, NEW.relation); END;
CREATE TRIGGER knowledge_relation_manifest_delete AFTER DELETE ON knowledge_relation WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'knowledge_relation', OLD.id, OLD.from_node, OLD.to_node, OLD.entry_id, OLD.created_at, OLD.relation_key, OLD.enc_meta, OLD.relation); END;
CREATE TRIGGER knowledge_relation_manifest_update AFTER UPDATE ON knowledge_relation WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'knowledge_relation', OLD.id, OLD.from_node, OLD.to_node, OLD.entry_id, OLD.created_at, OLD.relation_key, OLD.enc_meta, OLD.relation); SELECT jv_manifest('+', 'knowledge_relation', NEW.id, NEW.from_node, NEW.to_node, NEW.entry_id, NEW.created_at, NEW.relation_key, NEW.enc_meta, NEW.relation); END;

CREATE TRIGGER chat_thread_manifest_insert AFTER INSERT ON chat_thread WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'chat_thread', NEW.id, NEW.is_active, NEW.created_at, NEW.utc_offset, NEW.updated_at, NEW.last_message_at, NEW.enc_meta, NEW.title, NEW.metadata); END;
CREATE TRIGGER chat_thread_manifest_delete AFTER DELETE ON chat_thread WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'chat_thread', OLD.id, OLD.is_active, OLD.created_at, OLD.utc_offset, OLD.updated_at, OLD.last_message_at, OLD.enc_meta, OLD.title, OLD.metadata); END;
CREATE TRIGGER chat_thread_manifest_update AFTER UPDATE ON chat_thread WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'chat_thread', OLD.id, OLD.is_active, OLD.created_at, OLD.utc_offset, OLD.updated_at, OLD.last_message_at, OLD.enc_meta, OLD.title, OLD.metadata); SELECT jv_manifest('+', 'chat_thread', NEW.id, NEW.is_active, NEW.created_at, NEW.utc_offset, NEW.updated_at, NEW.last_message_at, NEW.enc_meta, NEW.title, NEW.metadata); END;

CREATE TRIGGER chat_message_manifest_insert AFTER INSERT ON chat_message WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'chat_message', NEW.id, NEW.thread_id, NEW.role, NEW.timestamp, NEW.utc_offset, NEW.entry_id, NEW.enc_meta, NEW.content, NEW.metadata); END;
CREATE TRIGGER chat_message_manifest_delete AFTER DELETE ON chat_message WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'chat_message', OLD.id, OLD.thread_id, OLD.role, OLD.timestamp, OLD.utc_offset, OLD.entry_id, OLD.enc_meta, OLD.content, OLD.metadata); END;
CREATE TRIGGER chat_message_manifest_update AFTER UPDATE ON chat_message WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'chat_message', OLD.id, OLD.thread_id, OLD.role, OLD.timestamp, OLD.utc_offset, OLD.entry_id, OLD.enc_meta, OLD.content, OLD.metadata); SELECT jv_manifest('+', 'chat_message', NEW.id, NEW.thread_id, NEW.role, NEW.timestamp, NEW.utc_offset, NEW.entry_id, NEW.enc_meta, NEW.content, NEW.metadata); END;
