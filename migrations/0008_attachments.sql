-- 0008 · Attachments (FORMAT.md §1.11–§1.13, §15): files kept with an entry, in the vault file.
--
-- `attachment_blob` holds each distinct content once: its sealed key, details and thumbnail,
-- and, in plaintext, the keyed tag that recognises the same content again (`content_tag`), the
-- name of its chunk stream and its padded size and chunk count, all bound into the sealed
-- fields. `attachment` ties a blob to an entry under a sealed file name. `attachment_chunk`
-- holds the blob's content as secretstream chunks (ciphertext already, so not sealed again);
-- its rows are covered by the manifest like the tag index, and do not travel in sync packs.
--
-- Chunks are written before their blob row, in the same transaction (the blob's id is derived
-- from the content, known only once it has all been read): hence the deferred foreign key. jv
-- never changes a blob's `stream_id`; were it changed, its chunks follow it (and then fail to
-- open, their associated data naming the old one) rather than being left to no blob. The
-- last attachment of a blob takes the blob, and so its chunks, with it (`attachment_release`),
-- inside the deleting transaction, where the manifest's triggers see every row go. An attachment
-- sync has parked (its entry deleted here, FORMAT.md §14.7) still names its blob: `sync_parked`
-- keeps that name in plaintext (`blob_id`), and the last of either kind to go releases the blob.

CREATE TABLE attachment_blob (
    id          TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    -- Keyed BLAKE2b of the content's digest: the same content is stored once (FORMAT.md §15.4).
    content_tag BLOB    NOT NULL UNIQUE CHECK (length(content_tag) = 16),
    stream_id   TEXT    NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    stored_size INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    enc_meta    BLOB    NOT NULL,
    key         BLOB    NOT NULL,
    details     BLOB    NOT NULL,
    thumbnail   BLOB    NOT NULL
);

CREATE TABLE attachment (
    id         TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    entry_id   TEXT    NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
    blob_id    TEXT    NOT NULL REFERENCES attachment_blob (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    enc_meta   BLOB    NOT NULL,
    name       BLOB    NOT NULL
);
CREATE INDEX attachment_by_entry ON attachment (entry_id, created_at);
CREATE INDEX attachment_by_blob ON attachment (blob_id);

CREATE TABLE attachment_chunk (
    stream_id TEXT    NOT NULL REFERENCES attachment_blob (stream_id) ON DELETE CASCADE ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED,
    idx       INTEGER NOT NULL,
    data      BLOB    NOT NULL,
    UNIQUE (stream_id, idx)
);

ALTER TABLE sync_parked ADD COLUMN blob_id TEXT;

CREATE TRIGGER attachment_release AFTER DELETE ON attachment
WHEN NOT EXISTS (SELECT 1 FROM attachment WHERE blob_id = OLD.blob_id)
 AND NOT EXISTS (SELECT 1 FROM sync_parked WHERE blob_id = OLD.blob_id)
BEGIN DELETE FROM attachment_blob WHERE id = OLD.blob_id; END;
CREATE TRIGGER attachment_parked_release AFTER DELETE ON sync_parked
WHEN OLD.blob_id IS NOT NULL
 AND NOT EXISTS (SELECT 1 FROM attachment WHERE blob_id = OLD.blob_id)
 AND NOT EXISTS (SELECT 1 FROM sync_parked WHERE blob_id = OLD.blob_id)
BEGIN DELETE FROM attachment_blob WHERE id = OLD.blob_id; END;


CREATE TRIGGER attachment_blob_manifest_insert AFTER INSERT ON attachment_blob WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'attachment_blob', NEW.id, NEW.content_tag, NEW.stream_id, NEW.created_at, NEW.stored_size, NEW.chunk_count, NEW.enc_meta, NEW.key, NEW.details, NEW.thumbnail); END;
CREATE TRIGGER attachment_blob_manifest_delete AFTER DELETE ON attachment_blob WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'attachment_blob', OLD.id, OLD.content_tag, OLD.stream_id, OLD.created_at, OLD.stored_size, OLD.chunk_count, OLD.enc_meta, OLD.key, OLD.details, OLD.thumbnail); END;
CREATE TRIGGER attachment_blob_manifest_update AFTER UPDATE ON attachment_blob WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'attachment_blob', OLD.id, OLD.content_tag, OLD.stream_id, OLD.created_at, OLD.stored_size, OLD.chunk_count, OLD.enc_meta, OLD.key, OLD.details, OLD.thumbnail); SELECT jv_manifest('+', 'attachment_blob', NEW.id, NEW.content_tag, NEW.stream_id, NEW.created_at, NEW.stored_size, NEW.chunk_count, NEW.enc_meta, NEW.key, NEW.details, NEW.thumbnail); END;

CREATE TRIGGER attachment_manifest_insert AFTER INSERT ON attachment WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'attachment', NEW.id, NEW.entry_id, NEW.blob_id, NEW.created_at, NEW.enc_meta, NEW.name); END;
CREATE TRIGGER attachment_manifest_delete AFTER DELETE ON attachment WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'attachment', OLD.id, OLD.entry_id, OLD.blob_id, OLD.created_at, OLD.enc_meta, OLD.name); END;
CREATE TRIGGER attachment_manifest_update AFTER UPDATE ON attachment WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'attachment', OLD.id, OLD.entry_id, OLD.blob_id, OLD.created_at, OLD.enc_meta, OLD.name); SELECT jv_manifest('+', 'attachment', NEW.id, NEW.entry_id, NEW.blob_id, NEW.created_at, NEW.enc_meta, NEW.name); END;

CREATE TRIGGER attachment_chunk_manifest_insert AFTER INSERT ON attachment_chunk WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'attachment_chunk', NEW.stream_id, NEW.idx, NEW.data); END;
CREATE TRIGGER attachment_chunk_manifest_delete AFTER DELETE ON attachment_chunk WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'attachment_chunk', OLD.stream_id, OLD.idx, OLD.data); END;
CREATE TRIGGER attachment_chunk_manifest_update AFTER UPDATE ON attachment_chunk WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'attachment_chunk', OLD.stream_id, OLD.idx, OLD.data); SELECT jv_manifest('+', 'attachment_chunk', NEW.stream_id, NEW.idx, NEW.data); END;


CREATE TRIGGER attachment_blob_sync_insert AFTER INSERT ON attachment_blob WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'attachment_blob', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment_blob' AND id = NEW.id); END;
CREATE TRIGGER attachment_blob_sync_delete AFTER DELETE ON attachment_blob WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'attachment_blob', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment_blob' AND id = OLD.id); END;
CREATE TRIGGER attachment_blob_sync_update AFTER UPDATE ON attachment_blob WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'attachment_blob', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment_blob' AND id = OLD.id); INSERT INTO sync_pending SELECT 'attachment_blob', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment_blob' AND id = NEW.id); END;

CREATE TRIGGER attachment_sync_insert AFTER INSERT ON attachment WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'attachment', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment' AND id = NEW.id); END;
CREATE TRIGGER attachment_sync_delete AFTER DELETE ON attachment WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'attachment', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment' AND id = OLD.id); END;
CREATE TRIGGER attachment_sync_update AFTER UPDATE ON attachment WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'attachment', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment' AND id = OLD.id); INSERT INTO sync_pending SELECT 'attachment', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'attachment' AND id = NEW.id); END;
