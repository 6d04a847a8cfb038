-- 0006 · Sync (FORMAT.md §14): what this device has to send, and what it knows of every record.
--
-- Nothing here leaves the device. `sync_device` exists only once `jv sync init` or `jv sync clone`
-- has run: until then the triggers below record nothing. Each records that a record was written
-- locally (inserted, changed, deleted, cascades included) by adding its (table, id) to
-- `sync_pending`; `jv sync` ships those records as they then stand, or a tombstone for those
-- gone. `jv_sync_captures()` is false while jv applies changes that came from other devices,
-- which must not be sent back. (`WHERE NOT EXISTS` rather than `OR IGNORE`: a statement's own
-- conflict policy would override the trigger's.) Without jv's key the function does not exist, so no write can
-- bypass it; as with the manifest's triggers, `jv check` notices if they are dropped.

CREATE TABLE sync_device (
    singleton  INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
    device_id  BLOB    NOT NULL CHECK (length(device_id) = 16),
    location   TEXT    NOT NULL,
    -- The number of this device's newest pack (0: none yet).
    last_pack  INTEGER NOT NULL DEFAULT 0,
    -- Hybrid logical clock: the greatest stamp made or seen.
    clock      INTEGER NOT NULL DEFAULT 0,
    -- Digest of the keyslots last written to keys/DEVICE-ID (rewritten when they change).
    keys_digest BLOB
);

-- Of every other device: its packs applied here (1...applied), and the greatest clock among
-- the stamps of its revisions held here (which snapshots compare with, FORMAT.md §14.9).
CREATE TABLE sync_peer (
    device_id BLOB    NOT NULL PRIMARY KEY CHECK (length(device_id) = 16),
    applied   INTEGER NOT NULL,
    clock     INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

-- The stamp of each record's revision as last sent or received; `deleted`: a tombstone; its
-- rank, which decides between concurrent revisions: an edit's own stamp, a tombstone's the
-- stamp of the revision it deleted (FORMAT.md §14).
CREATE TABLE sync_record (
    tbl         TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    hlc         INTEGER NOT NULL,
    device      BLOB    NOT NULL CHECK (length(device) = 16),
    deleted     INTEGER NOT NULL CHECK (deleted IN (0, 1)),
    rank_hlc    INTEGER NOT NULL,
    rank_device BLOB    NOT NULL CHECK (length(rank_device) = 16),
    PRIMARY KEY (tbl, id)
) WITHOUT ROWID;

-- Key rotations this device made (`jv rekey`), as their files in the location: each is
-- written there at the next sync, and again whenever it is missing.
CREATE TABLE sync_rotation (
    to_version INTEGER PRIMARY KEY,
    file       BLOB    NOT NULL
);

CREATE TABLE sync_pending (
    tbl TEXT NOT NULL,
    id  TEXT NOT NULL,
    PRIMARY KEY (tbl, id)
) WITHOUT ROWID;

-- Records received while a record they belong to (an entry, a thread, a node) is deleted here:
-- kept, as received, until it comes back (an edit beats a concurrent delete).
CREATE TABLE sync_parked (
    tbl    TEXT NOT NULL,
    id     TEXT NOT NULL,
    change BLOB NOT NULL,
    PRIMARY KEY (tbl, id)
) WITHOUT ROWID;


CREATE TRIGGER entry_sync_insert AFTER INSERT ON entry WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'entry', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'entry' AND id = NEW.id); END;
CREATE TRIGGER entry_sync_delete AFTER DELETE ON entry WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'entry', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'entry' AND id = OLD.id); END;
CREATE TRIGGER entry_sync_update AFTER UPDATE ON entry WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'entry', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'entry' AND id = OLD.id); INSERT INTO sync_pending SELECT 'entry', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'entry' AND id = NEW.id); END;

CREATE TRIGGER analysis_sync_insert AFTER INSERT ON analysis WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'analysis', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'analysis' AND id = NEW.id); END;
CREATE TRIGGER analysis_sync_delete AFTER DELETE ON analysis WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'analysis', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'analysis' AND id = OLD.id); END;
CREATE TRIGGER analysis_sync_update AFTER UPDATE ON analysis WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'analysis', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'analysis' AND id = OLD.id); INSERT INTO sync_pending SELECT 'analysis', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'analysis' AND id = NEW.id); END;

CREATE TRIGGER knowledge_node_sync_insert AFTER INSERT ON knowledge_node WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'knowledge_node', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_node' AND id = NEW.id); END;
CREATE TRIGGER knowledge_node_sync_delete AFTER DELETE ON knowledge_node WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'knowledge_node', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_node' AND id = OLD.id); END;
CREATE TRIGGER knowledge_node_sync_update AFTER UPDATE ON knowledge_node WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'knowledge_node', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_node' AND id = OLD.id); INSERT INTO sync_pending SELECT 'knowledge_node', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_node' AND id = NEW.id); END;

CREATE TRIGGER knowledge_relation_sync_insert AFTER INSERT ON knowledge_relation WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'knowledge_relation', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_relation' AND id = NEW.id); END;
CREATE TRIGGER knowledge_relation_sync_delete AFTER DELETE ON knowledge_relation WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'knowledge_relation', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_relation' AND id = OLD.id); END;
CREATE TRIGGER knowledge_relation_sync_update AFTER UPDATE ON knowledge_relation WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'knowledge_relation', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_relation' AND id = OLD.id); INSERT INTO sync_pending SELECT 'knowledge_relation', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'knowledge_relation' AND id = NEW.id); END;

CREATE TRIGGER chat_thread_sync_insert AFTER INSERT ON chat_thread WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'chat_thread', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_thread' AND id = NEW.id); END;
CREATE TRIGGER chat_thread_sync_delete AFTER DELETE ON chat_thread WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'chat_thread', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_thread' AND id = OLD.id); END;
-- Which thread is active is this device's own: switching threads is not a change.
CREATE TRIGGER chat_thread_sync_update AFTER UPDATE OF created_at, utc_offset, updated_at, last_message_at, enc_meta, title, metadata ON chat_thread WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'chat_thread', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_thread' AND id = OLD.id); INSERT INTO sync_pending SELECT 'chat_thread', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_thread' AND id = NEW.id); END;

CREATE TRIGGER chat_message_sync_insert AFTER INSERT ON chat_message WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'chat_message', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_message' AND id = NEW.id); END;
CREATE TRIGGER chat_message_sync_delete AFTER DELETE ON chat_message WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'chat_message', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_message' AND id = OLD.id); END;
CREATE TRIGGER chat_message_sync_update AFTER UPDATE ON chat_message WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'chat_message', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_message' AND id = OLD.id); INSERT INTO sync_pending SELECT 'chat_message', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'chat_message' AND id = NEW.id); END;
