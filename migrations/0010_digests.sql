-- 0010 · Reflections on a period (FORMAT.md §1.15): what a local model said about the digest of
-- a week, a month or a year of entries (`jv digest --command`).
--
-- Encrypted: the reflection's text and the digest of the text it was written from. Plaintext by
-- design, like an analysis's: the period (its kind and its first and last local days), the model,
-- when it was written. The id is derived from the period and the model (FORMAT.md §1.15), so
-- writing again for the same period and model replaces the record, on this device and on every
-- device it syncs with.

CREATE TABLE digest_reflection (
    id         TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    period     TEXT    NOT NULL CHECK (period IN ('week', 'month', 'year')),
    start_day  TEXT    NOT NULL CHECK (length(start_day) = 10),
    end_day    TEXT    NOT NULL CHECK (length(end_day) = 10),
    model      TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    utc_offset INTEGER NOT NULL,
    version    INTEGER NOT NULL,
    enc_meta   BLOB    NOT NULL,
    payload    BLOB    NOT NULL
);
CREATE INDEX digest_reflection_by_period ON digest_reflection (start_day, end_day, model);


CREATE TRIGGER digest_reflection_manifest_insert AFTER INSERT ON digest_reflection WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'digest_reflection', NEW.id, NEW.period, NEW.start_day, NEW.end_day, NEW.model, NEW.created_at, NEW.utc_offset, NEW.version, NEW.enc_meta, NEW.payload); END;
CREATE TRIGGER digest_reflection_manifest_delete AFTER DELETE ON digest_reflection WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'digest_reflection', OLD.id, OLD.period, OLD.start_day, OLD.end_day, OLD.model, OLD.created_at, OLD.utc_offset, OLD.version, OLD.enc_meta, OLD.payload); END;
CREATE TRIGGER digest_reflection_manifest_update AFTER UPDATE ON digest_reflection WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'digest_reflection', OLD.id, OLD.period, OLD.start_day, OLD.end_day, OLD.model, OLD.created_at, OLD.utc_offset, OLD.version, OLD.enc_meta, OLD.payload); SELECT jv_manifest('+', 'digest_reflection', NEW.id, NEW.period, NEW.start_day, NEW.end_day, NEW.model, NEW.created_at, NEW.utc_offset, NEW.version, NEW.enc_meta, NEW.payload); END;


CREATE TRIGGER digest_reflection_sync_insert AFTER INSERT ON digest_reflection WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'digest_reflection', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'digest_reflection' AND id = NEW.id); END;
CREATE TRIGGER digest_reflection_sync_delete AFTER DELETE ON digest_reflection WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'digest_reflection', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'digest_reflection' AND id = OLD.id); END;
CREATE TRIGGER digest_reflection_sync_update AFTER UPDATE ON digest_reflection WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'digest_reflection', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'digest_reflection' AND id = OLD.id); INSERT INTO sync_pending SELECT 'digest_reflection', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'digest_reflection' AND id = NEW.id); END;
