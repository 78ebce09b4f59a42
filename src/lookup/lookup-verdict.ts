import type { PublicKey, PublicKeyFactory, TrustRoots, VerificationVerdict } from "../verify/index.js";
import { judge, type KeyFingerprint, keyFingerprint, pinsSomething } from "../verify/index.js";
import { PublicApi } from "./public-api.js";

/**
 * A look-up client judged by the caller's roots: receipts are checked with the service's
 * COSE keys the caller gave (`serviceKeys`) or whose fingerprints its policy names; with no
 * such root, with the keys the service serves (self-consistent at best).
 */
export function lookupApi(
  base: string,
  trust: TrustRoots,
  fetcher?: (url: string) => Promise<Response>,
  makeKey?: PublicKeyFactory,
): PublicApi {
  const given = trust.serviceKeys;
  const prints = trust.policy.serviceKeys;
  const pin =
    !given && prints.length === 0
      ? undefined
      : (fetched: Map<string, PublicKey>) =>
          given ??
          new Map(
            [...fetched].filter(([kid, k]) =>
              prints.some((p) => p.kid === kid && p.fingerprint === keyFingerprint(k)),
            ),
          );
  return new PublicApi(base, {
    ...(fetcher ? { fetch: fetcher } : {}),
    ...(pin ? { pin } : {}),
    ...(makeKey ? { makeKey } : {}),
  });
}

/**
 * The shared verdict of a public look-up (a document's versions, a vCon's trail) from its
 * report: `VERIFIED` holds only under pinned keys; `NOT FOUND` is nothing to judge; a receipt
 * that does not verify or a file matching no recorded version is tampered; a withdrawn version
 * is not one a relying party accepts as current.
 */
export async function lookupVerdict(
  api: PublicApi,
  report: { ok: boolean; verdict: string },
  trust: TrustRoots,
): Promise<VerificationVerdict> {
  const given = trust.serviceKeys;
  let fingerprints: KeyFingerprint[] = [];
  try {
    const fetched = await api.fetchedKeys();
    const pinned = await api.keys();
    fingerprints = [...(given ?? fetched)].map(([kid, k]) => ({
      kind: "cose-key",
      id: kid,
      fingerprint: keyFingerprint(k),
      pinned: pinned.has(kid) && (given !== undefined || pinned !== fetched),
    }));
  } catch {
    // No keys to show: the report names why nothing verified.
  }
  const reason = report.verdict.replace(/^[A-Z ]+: /, "");
  const kind = /^[A-Z ]+/.exec(report.verdict)?.[0].trim() ?? "";
  const hasPins = (given?.size ?? 0) > 0 || trust.policy.serviceKeys.length > 0;
  return judge({
    tampered: report.ok || kind === "NOT FOUND" || kind === "WITHDRAWN" ? [] : [reason],
    cannotEvaluate: kind === "NOT FOUND" ? [reason] : [],
    policy: [
      ...(kind === "WITHDRAWN" ? [`withdrawn: ${reason}`] : []),
      ...(report.ok && pinsSomething(trust) && !hasPins
        ? ["the roots you gave pin no service key: give --keys, or service-key lines in the policy"]
        : []),
    ],
    pinned: pinsSomething(trust),
    level: "pinned",
    roots: trust.described,
    fingerprints,
    notChecked: [
      "completeness: the service's public listing shows what it chooses to; nothing proves no record was left out",
    ],
    unsigned: ["confirmation_status and the listing's order: the service's claims, not signed"],
    proven: reason,
  });
}
