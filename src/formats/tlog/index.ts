export { parseCheckpoint } from "./checkpoint.js";
export { cosignatureTime, cosignatureVerifier } from "./cosignature.js";
export { COSIGNATURE_V1, ED25519, ed25519Verifier, keyIdOf, parseVkey } from "./keys.js";
export { ML_DSA_44 } from "./ml-dsa.js";
export { NoteError, type NoteVerifier, parseNote, verifyNote } from "./note.js";
export { logOrigin } from "./origin.js";
export { parseTlogProof, TLOG_PROOF_HEADER } from "./proof.js";
export { parseProofExtra } from "./proof-extra.js";
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
export { auditTiles, parseEntryBundle, rootFromTiles, type TileFetch, verifyEntryInTiles } from "./tiles.js";
export { EMPTY_ROOT, leafHash, treeRoot } from "./tree.js";
export { verifierFromVkey } from "./vkey-verifier.js";

export { parseWitnessList, type WitnessEntry } from "./witness-list.js";
