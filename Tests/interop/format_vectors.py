#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Computes FORMAT.md's test vectors from the document alone, with PyNaCl and hashlib —
an implementation independent of jv. `FormatVectorTests.swift` asserts jv produces the same."""
import hashlib
import pathlib
import struct
import uuid

from nacl import bindings, pwhash

def h(b): return b.hex()

def xchacha_seal(key, nonce, plaintext, ad):
    return nonce + bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, nonce, key)

def kdf_subkey(master, subkey_id, context):
    # crypto_kdf_derive_from_key: BLAKE2b-256, key = master, salt = id (u64 LE) ‖ 8 zero bytes,
    # personal = context (8 bytes) ‖ 8 zero bytes, empty message.
    return hashlib.blake2b(b"", digest_size=32, key=master,
                           salt=struct.pack("<Q", subkey_id) + bytes(8),
                           person=context.encode() + bytes(8)).digest()

def pad(data, block=64):
    padded_length = (len(data) // block + 1) * block
    return data + b"\x80" + bytes(padded_length - len(data) - 1)

def lp8(text): return bytes([len(text)]) + text.encode()

vault_id = uuid.UUID("00112233-4455-6677-8899-aabbccddeeff").bytes
master = bytes(range(0x00, 0x20))
out = {}

# Passphrase keyslot.
passphrase = b"correct horse battery staple"
salt = bytes([0xA5]) * 16
ops, mem = 2, 64 << 20
kek = pwhash.argon2id.kdf(32, passphrase, salt, opslimit=ops, memlimit=mem)
params = struct.pack(">BBBBIQ", 1, 0, 1, 1, ops, mem) + salt + struct.pack(">I", 1)
nonce = bytes(range(0x40, 0x58))
slot = params + xchacha_seal(kek, nonce, master, b"JVLT-keyslot" + vault_id + params)
out["passphrase_kek"] = h(kek)
out["passphrase_keyslot"] = h(slot)

# Recovery key and recovery keyslot.
recovery = bytes(range(0x20, 0x40))
check = hashlib.blake2b(b"JVLT-recovery-check" + recovery, digest_size=32).digest()[:3]
import base64
symbols = base64.b32encode(recovery + check).decode().lower().rstrip("=")
out["recovery_key_text"] = "JVR1-" + "-".join(symbols[i:i + 4] for i in range(0, len(symbols), 4))
rsalt = bytes([0x5A]) * 16
recovery_kek = hashlib.blake2b(b"", digest_size=32, key=recovery, salt=rsalt,
                               person=b"JVLT-recov-kek1\x00").digest()
rparams = struct.pack(">BBBBIQ", 1, 1, 2, 2, 0, 0) + rsalt + struct.pack(">I", 1)
rnonce = bytes(range(0x41, 0x59))
out["recovery_kek"] = h(recovery_kek)
out["recovery_keyslot"] = h(rparams + xchacha_seal(recovery_kek, rnonce, master, b"JVLT-keyslot" + vault_id + rparams))

# Subkeys.
k_rec = kdf_subkey(master, 1, "JVLTREC1")
k_bidx = kdf_subkey(master, 2, "JVLTBIDX")
out["record_key"] = h(k_rec)
out["blind_index_key"] = h(k_bidx)
out["tag_bidx_travel"] = h(hashlib.blake2b(b"tag\x00travel", digest_size=32, key=k_bidx).digest()[:8])

# An entry record.
entry_id = uuid.UUID("3f2504e0-4f89-41d3-9a0c-0305e82c3301")
record_salt = bytes([0x11]) * 16
kv, rev = 1, 1
created_at = 1767623400000          # 2026-01-05T14:30:00Z = 23:30 at +09:00
modified_at = 1767623400000
utc_offset, version, starred = 32400, 1, 0
enc_meta = struct.pack(">BII", 1, kv, rev) + record_salt
subkey = hashlib.blake2b(entry_id.bytes, digest_size=32, key=k_rec, salt=record_salt,
                         person=b"JVLT-recsubkey1\x00").digest()
def ad(field):
    bound = [created_at, modified_at, utc_offset, version, starred]
    return (b"JV\x01" + lp8("entry") + entry_id.bytes + lp8(field) + struct.pack(">II", kv, rev)
            + bytes([len(bound)]) + b"".join(b"\x01" + struct.pack(">q", v) for v in bound))
content = "Tokyo night. #travel".encode()
tags = b'["travel"]'
out["entry_enc_meta"] = h(enc_meta)
out["entry_subkey"] = h(subkey)
out["entry_content_ad"] = h(ad("content"))
out["entry_content"] = h(xchacha_seal(subkey, bytes(range(0x60, 0x78)), pad(content), ad("content")))
out["entry_tags"] = h(xchacha_seal(subkey, bytes(range(0x80, 0x98)), pad(tags), ad("tags")))

# Associated data of a record of every other sealed table (§4.4, §1.5–§1.9): record id
# 3f2504e0-…-3301, kv 1, rev 2, the bound columns in the order of §1.
def bound_value(value):
    if value is None: return b"\x00"
    if isinstance(value, int): return b"\x01" + struct.pack(">q", value)
    data = value.encode()
    return b"\x02" + struct.pack(">I", len(data)) + data
def record_ad(table, field, bound, rev=2):
    return (b"JV\x01" + lp8(table) + entry_id.bytes + lp8(field) + struct.pack(">II", 1, rev)
            + bytes([len(bound)]) + b"".join(bound_value(v) for v in bound))
other = "00000000-0000-4000-8000-000000000001"
other2 = "00000000-0000-4000-8000-000000000002"
k_bidx_hash = lambda message: hashlib.blake2b(message, digest_size=32, key=k_bidx).digest()[:8]
node_key = k_bidx_hash(b"node\x00person\x00anna")
relation_key = k_bidx_hash(b"relation\x00meets")
out["node_key_person_anna"] = h(node_key)
out["relation_key_meets"] = h(relation_key)
out["analysis_payload_ad"] = h(record_ad("analysis", "payload", [other, "llama3", created_at, utc_offset, 2]))
out["knowledge_node_name_ad"] = h(record_ad("knowledge_node", "name", ["person", created_at, h(node_key)]))
out["knowledge_relation_relation_ad"] = h(record_ad("knowledge_relation", "relation", [other, other2, None, created_at, h(relation_key)]))
out["chat_thread_title_ad"] = h(record_ad("chat_thread", "title", [created_at, utc_offset, modified_at, None]))
out["chat_message_content_ad"] = h(record_ad("chat_message", "content", [other, "user", created_at, utc_offset]))

# Derived knowledge-graph ids (§1.6, §1.7).
def uuid_v8(digest):
    b = bytearray(digest[:16])
    b[6] = b[6] & 0x0F | 0x80
    b[8] = b[8] & 0x3F | 0x80
    return uuid.UUID(bytes=bytes(b))
node_id = uuid_v8(hashlib.blake2b(b"JVLT-node-id" + node_key, digest_size=32).digest())
def relation_id(entry):
    marked = b"\x01" + uuid.UUID(entry).bytes if entry else b"\x00" + bytes(16)
    return uuid_v8(hashlib.blake2b(b"JVLT-relation-id" + node_id.bytes + uuid.UUID(other).bytes + relation_key + marked,
                                   digest_size=32).digest())
out["node_id_person_anna"] = str(node_id)
out["relation_id_meets_no_entry"] = str(relation_id(None))
out["relation_id_meets_entry"] = str(relation_id(str(entry_id)))

# Row-set manifest (§11).
k_man = kdf_subkey(master, 3, "JVLTMANI")
row = b"JVLT-row" + lp8("entry_tag") + bytes([2]) + b"\x03" + struct.pack(">I", 8) + bytes([0xAB]) * 8 + b"\x01" + struct.pack(">q", 7)
digest = hashlib.blake2b(row, digest_size=32, key=k_man).digest()
out["manifest_key"] = h(k_man)
out["manifest_entry_tag_row_digest"] = h(digest)
tables = ["entry", "analysis", "knowledge_node", "knowledge_relation", "chat_thread", "chat_message", "entry_tag"]
body = struct.pack(">BIQB", 1, 1, 1, len(tables))
for table in tables:
    body += lp8(table) + (struct.pack(">Q", 1) + digest if table == "entry_tag" else struct.pack(">Q", 0) + bytes(32))
out["manifest_one_tag_row"] = h(body + hashlib.blake2b(b"JVLT-manifest" + vault_id + body, digest_size=32, key=k_man).digest())
# Format 2 (§11.2): the same, with the file's instance id 10 11 … 1f and a sync_device row
# (singleton 1, device_id 20 21 … 2f, location "/home/me/Sync", last_pack 3, clock 5, keys_digest NULL).
instance = bytes(range(0x10, 0x20))
location = "/home/me/Sync".encode()
sync_row = (b"JVLT-row" + lp8("sync_device") + bytes([6]) + b"\x01" + struct.pack(">q", 1)
            + b"\x03" + struct.pack(">I", 16) + bytes(range(0x20, 0x30)) + b"\x02" + struct.pack(">I", len(location)) + location
            + b"\x01" + struct.pack(">q", 3) + b"\x01" + struct.pack(">q", 5) + b"\x00")
sync_digest = hashlib.blake2b(sync_row, digest_size=32, key=k_man).digest()
out["manifest_sync_device_row_digest"] = h(sync_digest)
body2 = bytes([2]) + body[1:] + instance + struct.pack(">Q", 1) + sync_digest
out["manifest_format_2"] = h(body2 + hashlib.blake2b(b"JVLT-manifest" + vault_id + body2, digest_size=32, key=k_man).digest())
# The high-water identity of that file (§11.6).
out["high_water_identity"] = str(uuid.UUID(bytes=hashlib.blake2b(b"JVLT-high-water" + vault_id + instance, digest_size=16).digest()))

# A small backup (§8) of the golden vault of §6 (`Tests/JournalVaultTests/Fixtures/golden.vault`,
# the vectors' header, keyslots and entry), written to `Fixtures/golden.jvbak`. Deterministic: the
# file key, wrap nonce and stream header are fixed (libsodium draws them at random), and a
# secretstream started for pulling with a header is in the state pushing with it starts in.
fixtures = pathlib.Path(__file__).resolve().parent.parent / "JournalVaultTests" / "Fixtures"
snapshot = (fixtures / "golden.vault").read_bytes()
file_key = bytes(range(0xC0, 0xE0))
wrap_nonce = bytes(range(0xE0, 0xF8))
stream_header = bytes(range(0x30, 0x48))
prefix = (b"JVLTBAK\x00" + struct.pack(">H", 1) + vault_id + struct.pack(">qIB", created_at, 1, 2)
          + slot + bytes.fromhex(out["recovery_keyslot"]))
k_backup = kdf_subkey(master, 4, "JVLTBACK")
wrapped_file_key = bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(file_key, b"JVLT-backup" + prefix, wrap_nonce, k_backup)
mac_input = prefix + wrap_nonce + wrapped_file_key + stream_header
header_mac = hashlib.blake2b(mac_input, digest_size=32, key=kdf_subkey(file_key, 1, "JVBKHMAC")).digest()
header = mac_input + header_mac
header += hashlib.blake2b(b"JVLT-backup-check" + header, digest_size=32).digest()
stream = bindings.crypto_secretstream_xchacha20poly1305_state()
bindings.crypto_secretstream_xchacha20poly1305_init_pull(stream, stream_header, kdf_subkey(file_key, 2, "JVBKSTRM"))
body = b""
full = len(snapshot) // 65536 * 65536
for start in range(0, full, 65536):
    body += bindings.crypto_secretstream_xchacha20poly1305_push(stream, snapshot[start:start + 65536], header_mac,
                                                              bindings.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
body += bindings.crypto_secretstream_xchacha20poly1305_push(stream, snapshot[full:], header_mac,
                                                          bindings.crypto_secretstream_xchacha20poly1305_TAG_FINAL)
(fixtures / "golden.jvbak").write_bytes(header + body)
out["backup_snapshot_sha256"] = hashlib.sha256(snapshot).hexdigest()
out["backup_header"] = h(header)
out["backup_file_sha256"] = hashlib.sha256(header + body).hexdigest()

# The same snapshot as a backup of format 2 (§8.2), written to `Fixtures/golden2.jvbak`: the same
# file key and wrap nonce, no stream header, and every chunk sealed on its own with
# ChaCha20-Poly1305 (IETF), its nonce the chunk's index (88 bits, big-endian) and 1 for the last.
prefix2 = prefix[:8] + struct.pack(">H", 2) + prefix[10:]
wrapped_file_key2 = bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(file_key, b"JVLT-backup" + prefix2, wrap_nonce, k_backup)
mac_input2 = prefix2 + wrap_nonce + wrapped_file_key2
header_mac2 = hashlib.blake2b(mac_input2, digest_size=32, key=kdf_subkey(file_key, 1, "JVBKHMAC")).digest()
header2 = mac_input2 + header_mac2
header2 += hashlib.blake2b(b"JVLT-backup-check" + header2, digest_size=32).digest()
body_key2 = kdf_subkey(file_key, 3, "JVBKSTRM")
chunk_count = max(1, (len(snapshot) + 65535) // 65536)
body2 = b""
for index in range(chunk_count):
    nonce = index.to_bytes(11, "big") + bytes([index == chunk_count - 1])
    body2 += bindings.crypto_aead_chacha20poly1305_ietf_encrypt(snapshot[index * 65536:(index + 1) * 65536], header_mac2, nonce, body_key2)
(fixtures / "golden2.jvbak").write_bytes(header2 + body2)
out["backup2_header"] = h(header2)
out["backup2_file_sha256"] = hashlib.sha256(header2 + body2).hexdigest()

# Sync (§14.10): K_sync, a conflict copy's id, a pack of one change and a keys file. Devices …0001
# and …0002. The pack is written to `Fixtures/golden.jvp`, deterministic as the backup is above:
# pack key `c0 … df`, and the backup's wrap nonce and stream header.
k_sync = kdf_subkey(master, 6, "JVLTSYNC")
out["sync_key"] = h(k_sync)
device1 = uuid.UUID("00000000-0000-4000-8000-000000000001").bytes
device2 = uuid.UUID("00000000-0000-4000-8000-000000000002").bytes
def stamp(hlc, device): return struct.pack(">Q", hlc) + device
conflict = b"JVLT-sync-conflict" + lp8("entry") + entry_id.bytes + stamp(created_at, device1)
conflict_hash = hashlib.blake2b(conflict, digest_size=32, key=k_sync).digest()
copy_id = bytearray(conflict_hash[:16])
copy_id[6] = copy_id[6] & 0x0F | 0x80
copy_id[8] = copy_id[8] & 0x3F | 0x80
out["sync_conflict_message"] = h(conflict)
out["sync_conflict_blake2b"] = h(conflict_hash)
out["sync_conflict_copy_id"] = str(uuid.UUID(bytes=bytes(copy_id)))
# Device …0001's pack 1, kv 1, one dependency (…0002, 3); one tombstone of the entry, stamp
# (t + 1, …0001), base (t, …0002).
pack_header = (b"JVSYNC\x00\x00" + struct.pack(">H", 1) + vault_id + device1
               + struct.pack(">QIqH", 1, 1, created_at, 1) + device2 + struct.pack(">Q", 3))
pack_key = bytes(range(0xC0, 0xE0))
wrapped_pack_key = xchacha_seal(k_sync, wrap_nonce, pack_key, b"JVLT-sync-pack" + pack_header)
change = bytes([2, 0]) + entry_id.bytes + stamp(created_at + 1, device1) + b"\x01" + stamp(created_at, device2)
records = struct.pack(">I", len(change)) + change + bytes(4)
def pack_size(padding):
    plaintext = len(records) + padding
    return len(pack_header) + len(wrapped_pack_key) + len(stream_header) + plaintext + 17 * -(-plaintext // 65536)
padding = next(n for n in range(8192) if pack_size(n) % 4096 == 0)
plaintext = records + bytes(padding)
stream = bindings.crypto_secretstream_xchacha20poly1305_state()
bindings.crypto_secretstream_xchacha20poly1305_init_pull(stream, stream_header, pack_key)
pack_body = b""
for start in range(0, len(plaintext), 65536):
    final = start + 65536 >= len(plaintext)
    pack_body += bindings.crypto_secretstream_xchacha20poly1305_push(
        stream, plaintext[start:start + 65536], None,
        bindings.crypto_secretstream_xchacha20poly1305_TAG_FINAL if final else bindings.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE)
pack = pack_header + wrapped_pack_key + stream_header + pack_body
(fixtures / "golden.jvp").write_bytes(pack)
out["sync_pack_header"] = h(pack_header)
out["sync_pack_wrapped_key"] = h(wrapped_pack_key)
out["sync_pack_change"] = h(change)
out["sync_pack_padding"] = str(padding)
out["sync_pack_size"] = str(len(pack))
out["sync_pack_sha256"] = hashlib.sha256(pack).hexdigest()
# Device …0001's keys file, kv 1, the two keyslots above (passphrase first).
keys_body = (b"JVSYNCK\x00" + struct.pack(">H", 1) + vault_id + device1 + struct.pack(">IB", 1, 2)
             + slot + bytes.fromhex(out["recovery_keyslot"]))
keys_file = keys_body + hashlib.blake2b(b"JVLT-sync-keys" + keys_body, digest_size=32, key=k_sync).digest()
out["sync_keys_file_size"] = str(len(keys_file))
out["sync_keys_file_mac"] = h(keys_file[-32:])
out["sync_keys_file_sha256"] = hashlib.sha256(keys_file).hexdigest()

# Attachments (§15.5): K_att, a tiny content's digest, content tag and blob id, its one chunk
# (the stream started from the given header: init_pull gives the state init_push would), and
# the associated data of the two tables' fields (§4.4).
def padme(length):
    if length < 2: return length
    e = length.bit_length() - 1
    mask = (1 << (e - e.bit_length())) - 1
    return (length + mask) & ~mask
k_att = kdf_subkey(master, 7, "JVLTATTC")
attachment = b"Ridge, 9."
attachment_digest = hashlib.blake2b(attachment, digest_size=32).digest()
content_tag = hashlib.blake2b(b"JVLT-content" + attachment_digest, digest_size=16, key=k_att).digest()
stream_id = uuid.UUID("00000000-0000-4000-8000-000000000003")
content_key, chunk_stream_header = bytes(range(0x40, 0x60)), bytes(range(0x60, 0x78))
stored = attachment + bytes(padme(len(attachment)) - len(attachment))
chunk_ad = b"JVLT-chunk" + stream_id.bytes + struct.pack(">I", 0)
chunk_stream = bindings.crypto_secretstream_xchacha20poly1305_state()
bindings.crypto_secretstream_xchacha20poly1305_init_pull(chunk_stream, chunk_stream_header, content_key)
out["attachment_key"] = h(k_att)
out["attachment_digest"] = h(attachment_digest)
out["attachment_content_tag"] = h(content_tag)
out["attachment_blob_id"] = str(uuid_v8(hashlib.blake2b(b"JVLT-blob-id" + content_tag, digest_size=32).digest()))
out["attachment_chunk_ad"] = h(chunk_ad)
out["attachment_chunk"] = h(bindings.crypto_secretstream_xchacha20poly1305_push(
    chunk_stream, stored, chunk_ad, bindings.crypto_secretstream_xchacha20poly1305_TAG_FINAL))
out["attachment_blob_key_ad"] = h(record_ad("attachment_blob", "key", [str(stream_id), created_at, len(stored), 1, h(content_tag)]))
out["attachment_name_ad"] = h(record_ad("attachment", "name", [other, other2, created_at]))

# Measures (§1.14): the AD of a record's `fields`, and the id of the measures of the entry above.
out["measure_fields_ad"] = h(record_ad("measure", "fields", [other]))
out["measure_id"] = str(uuid_v8(hashlib.blake2b(b"JVLT-measure" + lp8("measure") + entry_id.bytes, digest_size=32, key=k_sync).digest()))

for key, value in out.items():
    print(f"{key} = {value}")
