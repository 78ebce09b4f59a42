// The checks of signed evidence by the service's COSE keys (a record with its receipt, a signed or
// transparent statement, a tlog-proof) judged into the shared verdict: one implementation, run by
// `archivist verify` and by the /verify page.
import { receiptVds, VDS_RFC9162 } from "../formats/cose/index.js";
import { entryWords } from "../formats/mmr/index.js";
import { erasableStandings, erasedWords } from "../formats/record/erasable.js";
import {
  cannotEvaluate,
  claimsRegisteredStatement,
  type IssuerKeys,
  judge,
  type KeyFingerprint,
  keyFingerprint,
  type PublicKey,
  pinsSomething,
  type SignatureKey,
  statementPayloadMatches,
  type TrustRoots,
  unsignedFields,
  type VerificationVerdict,
  verifyRecordReceipt,
  verifyRecordTlogProofReport,
  verifyStatement,
} from "../verify/index.js";
import { type CoseFile, RECEIPT_ALONE, readCoseFile } from "./cose-file.js";

const isRfc9162Receipt = (receipt: Uint8Array): boolean => {
  try {
    return receiptVds(receipt) === VDS_RFC9162;
  } catch {
    return false;
  }
};

/** The service's keys to check with, and the ones the caller pinned (by value or by fingerprint). */
export interface ServiceKeys {
  keys: Map<string, PublicKey>;
  pinned?: Map<string, PublicKey>;
  fingerprints: KeyFingerprint[];
}

type Check = { ok: true; proven: string } | { ok: false; reason: string };

const prints = (keys: Map<string, PublicKey>, pinned: (kid: string, f: string) => boolean) =>
  [...keys].map(([kid, k]): KeyFingerprint => {
    const fingerprint = keyFingerprint(k);
    return { kind: "cose-key", id: kid, fingerprint, pinned: pinned(kid, fingerprint) };
  });

/**
 * The keys to check with: the caller's own (`trust.serviceKeys`) pinned as given, else the keys the
 * service serves (`served`), pinned only where the policy names their fingerprint. Served keys are
 * what the service says today, never a trust root.
 */
export function serviceKeysFor(trust: TrustRoots, served?: Map<string, PublicKey>): ServiceKeys {
  if (trust.serviceKeys)
    return {
      keys: trust.serviceKeys,
      pinned: trust.serviceKeys,
      fingerprints: prints(trust.serviceKeys, () => true),
    };
  // Nothing served (issuer keys alone check a statement): no service key to pin either.
  if (!served) return { keys: new Map(), fingerprints: [] };
  const fetched = served;
  const byPolicy = (kid: string, f: string) =>
    trust.policy.serviceKeys.some((p) => p.kid === kid && p.fingerprint === f);
  const fingerprints = prints(fetched, byPolicy);
  if (trust.policy.serviceKeys.length === 0) return { keys: fetched, fingerprints };
  const pinned = new Map([...fetched].filter(([kid]) => fingerprints.some((f) => f.id === kid && f.pinned)));
  return { keys: fetched, pinned, fingerprints };
}

/** The verdict of a check made with `keys`, re-made with the pinned ones when the caller pinned some. */
export function keyedVerdict(
  trust: TrustRoots,
  keys: ServiceKeys,
  check: (keys: Map<string, PublicKey>) => Check,
  unsigned: string[] = [],
): VerificationVerdict {
  const first = check(keys.keys);
  const policy: string[] = [];
  if (first.ok && keys.pinned) {
    const again = check(keys.pinned);
    if (!again.ok) policy.push(`not signed by a service key you pinned: ${again.reason}`);
  } else if (first.ok && pinsSomething(trust))
    policy.push("the roots you gave pin no service key: give --keys, or service-key lines in --policy");
  return judge({
    tampered: first.ok ? [] : [first.reason],
    policy,
    pinned: pinsSomething(trust),
    level: "pinned",
    roots: trust.described,
    fingerprints: keys.fingerprints,
    notChecked: [],
    unsigned,
    proven: first.ok ? first.proven : "",
  });
}

/**
 * Why a file given as a receipt is no receipt this verifier reads, or undefined. Another kind of
 * file (a record, a statement, a seal) says nothing against the record it was given with: it is
 * evidence that cannot be judged, not a forgery. A receipt whose proof or signature fails stays tampered.
 */
function notAReceipt(receipt: Uint8Array): string | undefined {
  let read: CoseFile;
  try {
    read = readCoseFile(receipt);
  } catch (err) {
    return `the receipt file is not a COSE_Sign1 (${(err as Error).message})`;
  }
  if (read.kind !== "receipt")
    return "the receipt file is a COSE_Sign1 without a verifiable data structure (a signed statement or a seal), not a receipt";
  if (read.profile !== "MMR" && read.profile !== "RFC9162_SHA256")
    return `the receipt's verifiable data structure (${read.profile}) is not one this verifier reads (MMR, RFC9162_SHA256)`;
  return undefined;
}

/** A record (its API JSON) with its COSE receipt, either profile. */
export function recordReceiptVerdict(
  trust: TrustRoots,
  keys: ServiceKeys,
  record: Record<string, unknown>,
  receipt: Uint8Array,
): VerificationVerdict {
  const wrongKind = notAReceipt(receipt);
  if (wrongKind) return cannotEvaluate(wrongKind);
  // A registered statement's RFC 9162 entry is its payload's hash: the record's fields say nothing of it.
  if (claimsRegisteredStatement(record) && isRfc9162Receipt(receipt)) {
    const first = verifyRecordReceipt(record, receipt, keys.keys);
    if (!first.ok)
      return cannotEvaluate(
        "the record is a registered statement, whose RFC 9162 entry is its payload's hash: check this receipt with the statement (archivist verify statement.cose --receipt <receipt>), or the record with its MMR receipt",
      );
  }
  return keyedVerdict(
    trust,
    keys,
    (k) => {
      const verdict = verifyRecordReceipt(record, receipt, k);
      if (!verdict.ok) return verdict;
      const standings = erasableStandings(record);
      const mismatch = standings.find((st) => st.state === "mismatch");
      if (mismatch?.state === "mismatch") return { ok: false, reason: mismatch.reason };
      const signed =
        verdict.profile === "mmr"
          ? `peak ${verdict.peak.slice(0, 16)}…`
          : `root of the RFC 9162 tree of ${verdict.treeSize} entries ${verdict.peak.slice(0, 16)}…`;
      // An erased value leaves the leaf as it was: the record verifies, and says what was erased.
      const erased = standings.flatMap((st) => (st.state === "erased" ? [`; ${erasedWords(st)}`] : []));
      return {
        ok: true,
        proven: `${String(record.identity)} is ${entryWords(verdict.mmrIndex)} of ${verdict.subject} (${verdict.profile} receipt by ${verdict.issuer}, leaf ${verdict.leaf.slice(0, 16)}…, ${signed})${erased.join("")}`,
      };
    },
    unsignedFields(record).map((f) => `${f}: not part of the signed leaf`),
  );
}

/**
 * A signed or transparent statement: the issuer's signature (its key among the service's keys or
 * `issuerKeys`), every receipt it carries or `receipts`, and the payload's hash when given.
 */
export function statementVerdict(
  trust: TrustRoots,
  keys: ServiceKeys,
  statement: Uint8Array,
  opts: {
    issuerKeys?: Map<string, SignatureKey>;
    receipts?: Uint8Array[];
    payload?: Uint8Array;
    payloadName?: string;
  },
): VerificationVerdict {
  let read: CoseFile;
  try {
    read = readCoseFile(statement);
  } catch (err) {
    return keyedVerdict(trust, keys, () => ({
      ok: false,
      reason: `statement is malformed: ${(err as Error).message}`,
    }));
  }
  if (read.kind === "receipt") return cannotEvaluate(RECEIPT_ALONE);
  const wrongKind = opts.receipts?.map(notAReceipt).find((why) => why !== undefined);
  if (wrongKind) return cannotEvaluate(wrongKind);
  // A key nobody gave is nothing to judge by, not a forgery.
  if (!keys.keys.has(read.kid) && !opts.issuerKeys?.has(read.kid))
    return cannotEvaluate(
      `the statement's issuer key (kid ${read.kid || "none"}) is neither one the service publishes nor one you gave: --issuer-key ${read.kid || "<kid>"}=<key file>`,
    );
  return keyedVerdict(trust, keys, (k) => {
    const verdict = verifyStatement(statement, {
      issuerKeys: new Map([...k, ...(opts.issuerKeys ?? [])]),
      serviceKeys: k,
      receipts: opts.receipts ?? [],
    });
    if (!verdict.ok) return verdict;
    if (opts.payload && !statementPayloadMatches(statement, opts.payload))
      return { ok: false, reason: `payload ${opts.payloadName ?? ""} does not match the statement's hash` };
    const profiles = verdict.profiles.length ? ` (${verdict.profiles.join(", ")})` : "";
    return {
      ok: true,
      proven: `statement by ${verdict.issuer}, ${verdict.receipts} receipt(s) checked${profiles}${opts.payload ? ", payload matches" : ""}`,
    };
  });
}

/**
 * A record against its c2sp.org/tlog-proof, judged against the caller's roots (every pinned log
 * key, the witnesses and quorum, min-trust, max-age, issuer lines of the policy): `served` is the
 * log key the service serves (self-consistent at best), `issuerKeys` the statement issuers' keys
 * the caller gave, which alone prove a registered statement's subject.
 */
export function tlogProofVerdict(
  trust: TrustRoots,
  record: Record<string, unknown>,
  proof: string,
  opts: { served?: string; issuerKeys?: IssuerKeys; statement?: Uint8Array } = {},
): Promise<VerificationVerdict> {
  return verifyRecordTlogProofReport(record, proof, trust, opts);
}
