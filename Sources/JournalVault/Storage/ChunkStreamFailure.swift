// SPDX-License-Identifier: Apache-2.0

/// Why a chunked stream — a backup's body, a sync pack's (``ChunkedSecretStream``,
/// ``IndexedChunkStream``) — is refused; each file maps these to its own messages. Chunks count from 1.
enum ChunkStreamFailure: Error, Equatable {
    /// The file ends before the final chunk.
    case truncated
    /// A chunk is damaged, out of place, or sealed with other associated data.
    case notAuthentic(chunk: Int)
    /// A chunk is shorter than its place allows: one before the last not full, or an empty last one after others.
    case shortChunk(chunk: Int)
    /// Bytes follow the final chunk.
    case trailingData
}
