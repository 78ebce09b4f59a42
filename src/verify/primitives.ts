/**
 * The primitives the service, the CLI, the client and the pages share with the verifier: CBOR,
 * COSE reading, MMR and RFC 9162 proof math, tlog notes, checkpoints and tiles, the record's
 * fields and leaf, SHA-256 and public keys, bounded answers. Code outside src/verify reaches the
 * room through this file or the package entry (index.ts) only (scripts/layers.json). Not a
 * package export: third parties use `vcon-archivist/verify`.
 */
export {
  ApiError,
  badRequest,
  errorStatus,
  forbidden,
  notFound,
  quotaExceeded,
  unauthenticated,
} from "./api/api-error.js";
export { CodedError } from "./api/coded-error.js";
export { isoTime, isUuid, pathUuid } from "./api/ids.js";
export { BUNDLE_FORMAT, BUNDLE_VERSION, looksLikeBundle } from "./bundle/index.js";
export {
  CborBstr,
  type CborValue,
  type CborWriter,
  encodeCbor,
  headSize,
  releaseWriter,
  takeWriter,
  writeHead,
} from "./cbor/index.js";
export { cnfClaimOf } from "./cose/cnf-key.js";
export {
  beginSigStructure,
  coseKeyBytes,
  coseKeySet,
  decodeSeal,
  decodeSign1,
  ES256,
  HEADER,
  INCLUSION,
  LEAF_IDTIMESTAMP,
  type MmrProofForm,
  type Rfc9162ReceiptInfo,
  type SealState,
  SIGNATURE1,
  type Sign1,
  VDS_MMR,
  VDS_RFC9162,
  verifySign1,
} from "./cose/index.js";
export { fromBase64, fromHex, toBase64 } from "./crypto/bytes.js";
export { type EcJwk, ecJwk, type PublicKey, type PublicKeyFactory } from "./crypto/public-key.js";
export type { AsciiLeafSha256, Sha256 } from "./crypto/sha256.js";
export { QueryError, type QueryErrorCode } from "./filters/query-error.js";
export {
  epochStartMs,
  idTimestampToMillis,
  parseIdTimestamp,
  simpleHashAnchor,
  tlogLeafData,
} from "./ledger/index.js";
export { type CoveringSeal, sealRoot } from "./ledger/trust.js";
export { consentOf, consentRole, lifecycleOrder, type PurposeConsent } from "./lifecycle/consent.js";
export { pinnedServiceKeys } from "./lifecycle/custody.js";
export {
  analysesWithProvenance,
  analysisDerivation,
  PROVENANCE_ATTRIBUTES,
  PROVENANCE_CONTENT_TYPE,
} from "./lifecycle/provenance.js";
export { type ConsentReport, consentReport, consentReportText, type ReportStep } from "./lifecycle/report.js";
export { canonicalSubject, subjectSpellings } from "./lifecycle/subject.js";
export {
  LIFECYCLE_ATTRIBUTES,
  lifecycleLabel,
  lifecycleOperation,
  purposesOf,
  recordAttributes,
  recordLifecycle,
} from "./lifecycle/vocabulary.js";
export { buildConsent, type ConsentAnswer } from "./lookup/consent-build.js";
export { type CoseFile, looksLikeCose, RECEIPT_ALONE, readCoseFile } from "./lookup/cose-file.js";
export { type DocumentReport, verifyDocumentHash, versionLabel } from "./lookup/document.js";
export {
  keyedVerdict,
  recordReceiptVerdict,
  type ServiceKeys,
  serviceKeysFor,
  statementVerdict,
  tlogProofVerdict,
} from "./lookup/keyed-verdict.js";
export { lookupApi, lookupVerdict } from "./lookup/lookup-verdict.js";
export { LookupError, PublicApi, type PublicRecord } from "./lookup/public-api.js";
export { checkReceipt, type ReceiptCheck } from "./lookup/receipts.js";
export { sha256Hex } from "./lookup/sha256.js";
export { looksLikeVcon, uuidOfVconFile, type VconReport, vconUuidOf, verifyVcon } from "./lookup/vcon.js";
export { hashPosPair, type NodeGetter as MmrNodeGetter } from "./mmr/hash.js";
export {
  entryWords,
  includedRoot,
  inclusionProofIndices,
  isValidMmrSize,
  leafCount,
  mmrIndexOfLeaf,
  peakIndices,
  verifyConsistency as mmrVerifyConsistency,
} from "./mmr/index.js";
export type { BearerTokens } from "./net/bearer-tokens.js";
export { BodyTooLarge, readBounded, readBoundedText } from "./net/bounded-body.js";
export { fetchWithin, timeLimit } from "./net/time-limit.js";
export { candidateLeaves } from "./receipts/record.js";
export {
  type AttributeStanding,
  COMMITMENT_KEY,
  commit,
  commitmentOf,
  type ErasableMember,
  erasableStandings,
  erasedWords,
  SALT_BYTES,
} from "./record/erasable.js";
export {
  ASSET_EVENT_FIELDS,
  ASSET_FIELDS,
  type AssetEventRecord,
  type AssetEventSource,
  type AssetRecord,
  type AssetSource,
  assetEventLeafHash,
  assetEventRecord,
  assetEventRowLeafHash,
  assetFreeEventLeafHash,
  assetFreeExtraBytes,
  assetRecord,
  type Face,
  type FieldKind,
  FREE_EVENT_FIELDS,
  FREE_EVENT_SEARCH_FIELDS,
  type FreeEventSource,
  freeEventRecord,
  freeEventSearchRecord,
  type RecordFields,
  type RecordPrincipal,
} from "./record/index.js";

export * as rfc9162 from "./rfc9162/index.js";
export {
  inclusionProof,
  leafHash,
  type NodeCoord,
  type NodeGetter as Rfc9162NodeGetter,
  nodeHash,
  sameHash,
  treeRoot as rfc9162TreeRoot,
  verifyConsistency as rfc9162VerifyConsistency,
} from "./rfc9162/index.js";
export { cwtClaimsOf, LEGACY_CWT_CLAIMS } from "./scitt/cwt-claims.js";
export { registeredEvent } from "./scitt/registered.js";
export {
  LABEL as STATEMENT_LABEL,
  SHA256 as STATEMENT_SHA256,
  StatementError,
  statementToEventAttributes,
} from "./scitt/statement.js";
export { attachReceipts, registeredTreeLeaf, verifyStatement } from "./scitt/transparent.js";
export type { Checkpoint } from "./tlog/checkpoint.js";
export { cosignatureDate, cosignedMessage, timestamped } from "./tlog/cosignature.js";
export {
  auditTiles,
  type ChainPeriod,
  COSIGNATURE_V1,
  cosignatureTime,
  ED25519,
  eachTile,
  logOrigin,
  ML_DSA_44,
  NoteError,
  type NoteVerifier,
  parseCheckpoint,
  parseNote,
  parseProofExtra,
  parseTilePath,
  parseVkey,
  parseWitnessList,
  periodLinkLeaf,
  rootFromTiles,
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  TLOG_PROOF_HEADER,
  tileCount,
  tilePath,
  tilesOf,
  tileWidth,
  treeRoot as tlogTreeRoot,
  verifierFromVkey,
  verifyCheckpoint,
  verifyNote,
  verifyPeriodChain,
  type WitnessEntry,
} from "./tlog/index.js";
export { keyIdOf } from "./tlog/keys.js";
export { subtreeMessage } from "./tlog/ml-dsa.js";
export { DASH as NOTE_SIGNATURE_DASH, fromBase64 as noteBase64, type NoteSignature } from "./tlog/note.js";
export type { TlogProof } from "./tlog/proof.js";
export { type ProofExtra, STATEMENT as PROOF_EXTRA_STATEMENT } from "./tlog/proof-extra.js";
export { EMPTY_ROOT as TLOG_EMPTY_ROOT, type PerfectHash, perfectHashesRead } from "./tlog/tree.js";
export { VconError, type VconErrorCode } from "./vcon/errors.js";
export {
  isLosslessObject,
  JsonNumber,
  type LosslessJson,
  type LosslessObject,
  parseLossless,
} from "./vcon/lossless-json.js";
export { pythonDumps, pythonFloatRepr, pythonString } from "./vcon/python-dumps.js";
export {
  cannotEvaluate,
  checkpointStanding,
  type IssuerKeys,
  judge,
  judgeCheckpoint,
  keyFingerprint,
  logKeyFingerprint,
  pinsSomething,
  USAGE_EXIT_CODE,
  type VerificationVerdict,
  verdictLabel,
  witnessGroup,
} from "./verdict/index.js";
