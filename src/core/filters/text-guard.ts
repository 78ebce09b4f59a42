import type { QueryErrorCode } from "../../errors/api-error.js";
import { QueryError } from "../../errors/query-error.js";

// PostgreSQL text cannot hold U+0000, and a lone surrogate becomes U+FFFD on the way to the
// database, so either would make SQL and in-memory matching disagree (or fail as a 500).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Index of the first character PostgreSQL text cannot store, or -1. */
export function unstorableIndex(text: string): number {
  const nul = text.indexOf("\u0000");
  const m = LONE_SURROGATE.exec(text);
  if (nul < 0) return m ? m.index : -1;
  return m ? Math.min(nul, m.index) : nul;
}

/** Refuses text that PostgreSQL cannot store, naming what it was. */
export function assertStorableText(text: string, what: string, code: QueryErrorCode): void {
  if (unstorableIndex(text) >= 0)
    throw new QueryError(code, `${what} contains a NUL character or an unpaired surrogate`);
}
