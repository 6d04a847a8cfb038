-- 0004 · Storage only, no change to the data model: entries get an integer key, `seq`, and the
-- tag blind indexes refer to it instead of the entry's UUID text.
-- Keyed by random UUIDs, every tag-index insert landed at a random page of two B-trees (the
-- table and its entry index); keyed by an increasing integer they append, which roughly halves
-- the SQLite work of a bulk import. `seq` is never encrypted, bound or exported: it is not part
-- of an entry, only of this file (FORMAT.md §1.3). Existing rows are numbered in time order.
-- Follows SQLite's table-rebuild procedure (create, copy, drop, rename); GRDB runs a migration
-- with foreign keys off and checks them all before it commits.

CREATE TABLE entry_new (
    seq         INTEGER PRIMARY KEY,
    id          TEXT    NOT NULL UNIQUE CHECK (length(id) = 36),
    created_at  INTEGER NOT NULL,
    modified_at INTEGER NOT NULL,
    utc_offset  INTEGER NOT NULL,
    local_day   TEXT    NOT NULL,
    version     INTEGER NOT NULL DEFAULT 1,
    starred     INTEGER NOT NULL DEFAULT 0 CHECK (starred IN (0, 1)),
    enc_meta    BLOB    NOT NULL,
    content     BLOB    NOT NULL,
    tags        BLOB    NOT NULL
);
INSERT INTO entry_new (id, created_at, modified_at, utc_offset, local_day, version, starred, enc_meta, content, tags)
    SELECT id, created_at, modified_at, utc_offset, local_day, version, starred, enc_meta, content, tags
    FROM entry ORDER BY created_at, id;

CREATE TABLE entry_tag_new (
    bidx      BLOB    NOT NULL CHECK (length(bidx) = 8),
    entry_seq INTEGER NOT NULL REFERENCES entry (seq) ON DELETE CASCADE,
    PRIMARY KEY (bidx, entry_seq)
) WITHOUT ROWID;
INSERT INTO entry_tag_new (bidx, entry_seq)
    SELECT entry_tag.bidx, entry_new.seq FROM entry_tag JOIN entry_new ON entry_new.id = entry_tag.entry_id;

DROP TABLE entry_tag;
DROP TABLE entry;
ALTER TABLE entry_new RENAME TO entry;
ALTER TABLE entry_tag_new RENAME TO entry_tag;

CREATE INDEX entry_by_day ON entry (local_day, created_at);
CREATE INDEX entry_by_time ON entry (created_at);
CREATE INDEX entry_tag_by_entry ON entry_tag (entry_seq);
