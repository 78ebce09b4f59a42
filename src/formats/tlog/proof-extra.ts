import { fromBase64, NoteError } from "./note.js";

/**
 * The extra data of this service's tlog-proofs (c2sp.org/tlog-proof leaves its meaning to the
 * application): the record's identity on the first line and, for a registered signed statement,
 * `statement <base64 COSE_Sign1>` on the second. A registered statement's tree leaf is its
 * payload's hash, so the statement is what ties the record's subject and issuer to that leaf;
 * carrying it keeps the proof checkable offline. Unauthenticated, like all extra data: a verifier
 * binds the statement to the record and checks the issuer's signature before it counts.
 */
export interface ProofExtra {
  identity: string;
  statement?: Uint8Array | undefined;
}

/** What starts the statement line (core/log/tlog-format.ts writes it). */
export const STATEMENT = "statement ";

/** Reads extra data as this service writes it; a proof from elsewhere may carry anything. */
export function parseProofExtra(extra: Uint8Array | undefined): ProofExtra {
  if (!extra) return { identity: "" };
  const [identity = "", second, ...rest] = new TextDecoder("utf-8", { fatal: false })
    .decode(extra)
    .split("\n");
  if (second === undefined) return { identity };
  if (!second.startsWith(STATEMENT) || rest.length > 0)
    throw new NoteError("the proof's extra data is not a record identity with an optional statement line");
  return { identity, statement: fromBase64(second.slice(STATEMENT.length)) };
}
