-- 0007 · Knowledge-graph ids derived from what they identify (FORMAT.md §1.6, §1.7).
--
-- A node's id is derived from its `node_key`, a relation's from its nodes' ids, `relation_key`
-- and entry, so that two devices of a synced vault that learn the same node or relation on their
-- own give it the same id, and their copies meet as one record instead of colliding on
-- `node_key` or on the relations' uniqueness. An id is derived once, under the key of its time,
-- and kept: a rekey does not change it. `node_key` is keyed, so the ids of an existing vault can
-- only be rewritten with the key, which a migration does not have: the first write of the vault
-- unlocked (or `jv sync init`) rewrites them, in that write's transaction, and adds this table's
-- one row. The row says the derivation is in force: while it is missing, ids may still be random.
-- A new vault, and a new device's (`jv sync clone`), has the row from the start. (Not a secret,
-- nor a protection: a record's id is bound into its ciphertext whatever this says, and an editor
-- of the file who removes the row only makes the next write derive the ids again.)
--
-- Older jv refuses this schema, so it cannot add nodes with random ids beside derived ones.

CREATE TABLE graph_ids_derived (
    singleton INTEGER NOT NULL PRIMARY KEY CHECK (singleton = 1)
);
