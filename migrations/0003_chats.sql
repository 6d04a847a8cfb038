-- 0003 · ADR-002 model version 3: AI chat threads and their messages.
-- Encrypted: thread titles and metadata, message content and metadata (model, language,
-- tokens). Plaintext by design: ids, times, roles, which thread and entry a message belongs to.

CREATE TABLE chat_thread (
    id              TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    is_active       INTEGER NOT NULL DEFAULT 0 CHECK (is_active IN (0, 1)),
    created_at      INTEGER NOT NULL,
    utc_offset      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    last_message_at INTEGER,
    enc_meta        BLOB    NOT NULL,
    title           BLOB    NOT NULL,
    metadata        BLOB    NOT NULL
);
-- At most one active thread.
CREATE UNIQUE INDEX chat_thread_one_active ON chat_thread (is_active) WHERE is_active = 1;
CREATE INDEX chat_thread_by_time ON chat_thread (created_at);

CREATE TABLE chat_message (
    id         TEXT    NOT NULL PRIMARY KEY CHECK (length(id) = 36),
    thread_id  TEXT    NOT NULL REFERENCES chat_thread (id) ON DELETE CASCADE,
    role       TEXT    NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    timestamp  INTEGER NOT NULL,
    utc_offset INTEGER NOT NULL,
    entry_id   TEXT    REFERENCES entry (id) ON DELETE SET NULL,
    enc_meta   BLOB    NOT NULL,
    content    BLOB    NOT NULL,
    metadata   BLOB    NOT NULL
);
CREATE INDEX chat_message_by_thread ON chat_message (thread_id, timestamp);
CREATE INDEX chat_message_by_time ON chat_message (timestamp);
CREATE INDEX chat_message_by_entry ON chat_message (entry_id);
