-- 0001 · ADR-002 model version 1: the vault header, its keyslots and journal entries.
-- Byte layouts of the BLOB columns are in FORMAT.md. Timestamps are integer milliseconds
-- since the Unix epoch (UTC); they stay plaintext so date and calendar queries need no key.

CREATE TABLE vault_header (
    singleton      INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1),
    vault_id       BLOB    NOT NULL CHECK (length(vault_id) = 16),
    format_version INTEGER NOT NULL,
    key_version    INTEGER NOT NULL,
    created_at     INTEGER NOT NULL
);

CREATE TABLE keyslot (
    slot INTEGER NOT NULL PRIMARY KEY,
    kind TEXT    NOT NULL CHECK (kind IN ('passphrase', 'recovery')),
    data BLOB    NOT NULL
);

CREATE TABLE entry (
    id          TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
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
CREATE INDEX entry_by_day ON entry (local_day, created_at);
CREATE INDEX entry_by_time ON entry (created_at);

-- Tag blind indexes: which entries carry a tag, without the tag's text.
CREATE TABLE entry_tag (
    entry_id TEXT NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
    bidx     BLOB NOT NULL CHECK (length(bidx) = 8),
    PRIMARY KEY (bidx, entry_id)
) WITHOUT ROWID;
CREATE INDEX entry_tag_by_entry ON entry_tag (entry_id);
