export { parseCheckpoint } from "./checkpoint.js";
export { cosignatureVerifier } from "./cosignature.js";
export { COSIGNATURE_V1, ED25519, ed25519Verifier, keyIdOf, parseVkey } from "./keys.js";
export { ML_DSA_44 } from "./ml-dsa.js";
export { NoteError, parseNote, verifyNote } from "./note.js";
export { parseTlogProof } from "./proof.js";
export {
  eachTile,
  encodeTileIndex,
  parseTilePath,
  type TileRef,
  tileCount,
  tilePath,
  tilesOf,
} from "./tile-path.js";
export { parseEntryBundle, rootFromTiles, type TileFetch, verifyEntryInTiles } from "./tiles.js";
export { EMPTY_ROOT, leafHash, treeRoot } from "./tree.js";
export { verifierFromVkey } from "./vkey-verifier.js";
export { parseWitnessList } from "./witness-list.js";
