export { formatCheckpoint, parseCheckpoint } from "./checkpoint.js";
export { cosign, cosignatureTime, cosignatureVerifier } from "./cosignature.js";
export {
  COSIGNATURE_V1,
  ED25519,
  ed25519KeySigner,
  ed25519PublicKey,
  ed25519Signer,
  ed25519Verifier,
  formatVkey,
  keyIdOf,
  parseVkey,
} from "./keys.js";
export {
  type CheckpointVerdict,
  type LogTrust,
  type RecordInLogVerdict,
  verifyCheckpoint,
  verifyRecordInTiles,
} from "./log-check.js";
export {
  ML_DSA_44,
  type MlDsa44Keys,
  mlDsa44Cosign,
  mlDsa44KeySigner,
  mlDsa44Keys,
  mlDsa44Signer,
} from "./ml-dsa.js";
export {
  formatNote,
  NoteError,
  type NoteSignature,
  type NoteVerifier,
  parseNote,
  signatureLine,
  signNote,
  verifyNote,
} from "./note.js";
export { logOrigin } from "./origin.js";
export {
  type ChainPeriod,
  formatPeriodLink,
  type PeriodChain,
  periodLinkLeaf,
  verifyPeriodChain,
} from "./period.js";
export {
  formatTlogProof,
  parseTlogProof,
  TLOG_PROOF_HEADER,
  type TlogProofVerdict,
  verifyTlogProof,
} from "./proof.js";
export { formatProofExtra, parseProofExtra } from "./proof-extra.js";
export { verifyRecordTlogProof } from "./record-proof.js";
export {
  eachTile,
  encodeTileIndex,
  parseTilePath,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  tileCount,
  tilePath,
  tilesOf,
  tileWidth,
} from "./tile-path.js";
export {
  auditTiles,
  formatEntryBundle,
  parseEntryBundle,
  rootFromTiles,
  type TileFetch,
  verifyEntryInTiles,
} from "./tiles.js";
export {
  consistencyProof,
  EMPTY_ROOT,
  leafHash,
  treeRoot,
} from "./tree.js";
export { verifierFromVkey } from "./vkey-verifier.js";
export {
  formatAddCheckpoint,
  judgeAddCheckpoint,
  parseAddCheckpoint,
  type WitnessedState,
} from "./witness.js";
export { parseWitnessList, type WitnessEntry } from "./witness-list.js";
