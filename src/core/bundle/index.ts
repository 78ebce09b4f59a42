export * from "./format.js";
export {
  BundleError,
  type BundleReport,
  type LogCheck,
  looksLikeBundle,
  parseBundle,
  type RecordCheck,
  verifyBundle,
} from "./verify.js";
