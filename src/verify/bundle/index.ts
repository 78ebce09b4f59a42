export * from "../../formats/bundle/format.js";
export { BUNDLE_FAILURES, type BundleFailure, type BundleFailureCode } from "./failures.js";
export { BundleError, parseBundle } from "./parse.js";
export type { BundleReport } from "./report.js";
export { verifyBundle } from "./verify.js";
