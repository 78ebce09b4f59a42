/**
 * Blobs by content hash: an upload refused by the quota re-check removes its bytes from the
 * content-addressed store only when no blob references them, and asks this index which.
 */
export const blobContentRefs = {
  id: "013-blob-content-refs",
  sql: "create index blobs_hash on blobs (hash);",
};
