-- 0002 · ADR-002 model version 2: AI analyses of entries and the knowledge graph they build.
-- Encrypted: analysis payloads, node names and metadata. Plaintext by design: ids, model
-- names, times, node types, relation types and strengths, and which records relate.

CREATE TABLE analysis (
    id           TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    entry_id     TEXT    NOT NULL REFERENCES entry (id) ON DELETE CASCADE,
    model        TEXT    NOT NULL,
    processed_at INTEGER NOT NULL,
    utc_offset   INTEGER NOT NULL,
    version      INTEGER NOT NULL DEFAULT 2,
    enc_meta     BLOB    NOT NULL,
    payload      BLOB    NOT NULL
);
CREATE INDEX analysis_by_entry ON analysis (entry_id);
CREATE INDEX analysis_by_time ON analysis (processed_at);
CREATE INDEX analysis_by_model ON analysis (model, processed_at);

CREATE TABLE knowledge_node (
    id         TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    type       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    -- Blind index of (type, name): one node per person, place, … without storing the name.
    node_key   BLOB    NOT NULL UNIQUE CHECK (length(node_key) = 8),
    enc_meta   BLOB    NOT NULL,
    name       BLOB    NOT NULL,
    metadata   BLOB    NOT NULL
);
CREATE INDEX knowledge_node_by_type ON knowledge_node (type, created_at);

CREATE TABLE knowledge_relation (
    id         TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    from_node  TEXT    NOT NULL REFERENCES knowledge_node (id) ON DELETE CASCADE,
    to_node    TEXT    NOT NULL REFERENCES knowledge_node (id) ON DELETE CASCADE,
    type       TEXT    NOT NULL,
    strength   REAL    NOT NULL CHECK (strength >= 0 AND strength <= 1),
    entry_id   TEXT    REFERENCES entry (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL
);
-- One relation of a type between two nodes per source entry; analysing again updates it.
CREATE UNIQUE INDEX knowledge_relation_unique ON knowledge_relation (from_node, to_node, type, entry_id);
CREATE INDEX knowledge_relation_to ON knowledge_relation (to_node);
CREATE INDEX knowledge_relation_by_entry ON knowledge_relation (entry_id);
