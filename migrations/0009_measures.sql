-- 0009 · Measures (FORMAT.md §1.14): the fields a person records with an entry (`jv add --field
-- mood=7`), one row per entry that has any, cascading with it.
--
-- Sealed: every field's name and value, together, as one canonical JSON object (`fields`). In
-- plaintext, by design: which entry has measures (`entry_id`, bound into the sealed field), as
-- with analyses. A row's id is derived from its entry's (FORMAT.md §1.14), so two devices that
-- give an entry its first measures write one record; the unique index keeps one row per entry.

CREATE TABLE measure (
    id       TEXT NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    entry_id TEXT NOT NULL UNIQUE REFERENCES entry (id) ON DELETE CASCADE,
    enc_meta BLOB NOT NULL,
    fields   BLOB NOT NULL
);


CREATE TRIGGER measure_manifest_insert AFTER INSERT ON measure WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('+', 'measure', NEW.id, NEW.entry_id, NEW.enc_meta, NEW.fields); END;
CREATE TRIGGER measure_manifest_delete AFTER DELETE ON measure WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'measure', OLD.id, OLD.entry_id, OLD.enc_meta, OLD.fields); END;
CREATE TRIGGER measure_manifest_update AFTER UPDATE ON measure WHEN jv_manifest_wants_rows()
BEGIN SELECT jv_manifest('-', 'measure', OLD.id, OLD.entry_id, OLD.enc_meta, OLD.fields); SELECT jv_manifest('+', 'measure', NEW.id, NEW.entry_id, NEW.enc_meta, NEW.fields); END;


CREATE TRIGGER measure_sync_insert AFTER INSERT ON measure WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'measure', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'measure' AND id = NEW.id); END;
CREATE TRIGGER measure_sync_delete AFTER DELETE ON measure WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'measure', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'measure' AND id = OLD.id); END;
CREATE TRIGGER measure_sync_update AFTER UPDATE ON measure WHEN jv_sync_captures() AND EXISTS (SELECT 1 FROM sync_device)
BEGIN INSERT INTO sync_pending SELECT 'measure', OLD.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'measure' AND id = OLD.id); INSERT INTO sync_pending SELECT 'measure', NEW.id WHERE NOT EXISTS (SELECT 1 FROM sync_pending WHERE tbl = 'measure' AND id = NEW.id); END;
