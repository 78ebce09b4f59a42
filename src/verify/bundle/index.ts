export * from "./format.js";
export {
  BUNDLE_FAILURES,
  BundleError,
  type BundleFailure,
  type BundleFailureCode,
  type BundleReport,
  parseBundle,
  verifyBundle,
} from "./verify.js";
