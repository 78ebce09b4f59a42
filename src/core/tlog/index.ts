export { type Checkpoint, formatCheckpoint, parseCheckpoint } from "./checkpoint.js";
export { cosign, cosignatureTime, cosignatureVerifier, cosignedMessage } from "./cosignature.js";
export {
  COSIGNATURE_V1,
  ED25519,
  ed25519PublicKey,
  ed25519Signer,
  ed25519Verifier,
  formatVkey,
  keyIdOf,
  parseVkey,
  type Vkey,
} from "./keys.js";
export {
  type CheckpointVerdict,
  type LogTrust,
  type RecordInLogVerdict,
  verifyCheckpoint,
  verifyRecordInTiles,
} from "./log-check.js";
export {
  formatNote,
  fromBase64,
  type Note,
  NoteError,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifier,
  parseNote,
  parseSignatureLines,
  signatureLine,
  signNote,
  toBase64,
  verifyNote,
} from "./note.js";
export { logOrigin } from "./origin.js";
export {
  encodeTileIndex,
  parseTilePath,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  tilePath,
  tilesOf,
  tileWidth,
} from "./tile-path.js";
export {
  auditTiles,
  formatEntryBundle,
  parseEntryBundle,
  rootFromTiles,
  TileError,
  type TileFetch,
  type TileInclusion,
  verifyEntryInTiles,
  withTiles,
} from "./tiles.js";
export {
  consistencyProof,
  EMPTY_ROOT,
  type Hash,
  inclusionProof,
  leafHash,
  nodeHash,
  type PerfectHash,
  perfectHashesRead,
  rangeHash,
  sameHash,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from "./tree.js";
export { verifierFromVkey } from "./vkey-verifier.js";
export {
  type AddCheckpoint,
  type AddCheckpointVerdict,
  formatAddCheckpoint,
  judgeAddCheckpoint,
  parseAddCheckpoint,
  type WitnessedState,
} from "./witness.js";
export { parseWitnessList, type WitnessEntry } from "./witness-list.js";
