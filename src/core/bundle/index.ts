export * from "./format.js";
export {
  BundleError,
  type BundleReport,
  looksLikeBundle,
  parseBundle,
  verifyBundle,
} from "./verify.js";
