import type { Principal } from "../../context.js";
import { nodePublicKeyFromJwk } from "../../core/node/crypto.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { type BundleSubject, buildBundle } from "../../lookup/evidence/bundle-build.js";
import {
  BundleError,
  type BundleFailure,
  cannotEvaluate,
  type EvidenceBundle,
  emptyPolicy,
  type TrustRoots,
  type VerificationVerdict,
  verifyBundle,
} from "../../verify/index.js";
import { answerGathering, CallerEvidence } from "../caller-evidence.js";
import type { HttpDeps } from "../deps.js";
import { ExportSlots } from "../export-slots.js";
import type { RouteTable } from "../route.js";

const group = "evidencev1";

/** The roots the service judges its own evidence under: none of the caller's, and it says so. */
const SERVICE_VIEW: TrustRoots = {
  policy: emptyPolicy(),
  described: [
    "the service's own keys as it serves them: its view of itself, not a trust root of yours (verify the bundle with your pinned keys: archivist verify --keys, or /verify)",
  ],
};

/**
 * The verdict object, and, when the service's own evidence contradicts itself, the verifier's
 * failures: a stored row altered under what was signed (a registered statement's bytes, say) is
 * named by the code a verifier would name it (`STATEMENT_MISMATCH`), not only in words.
 */
type ServiceVerdict = VerificationVerdict & { failures?: BundleFailure[] };

/**
 * The service's verdict on the evidence it gathered: the bundle checked offline with the keys it
 * carries (the service's own), so `self-consistent-unpinned` at best, never `verified`; a
 * `tampered` here means the service's own evidence contradicts itself.
 */
function serviceVerdict(bundle: EvidenceBundle): ServiceVerdict {
  try {
    const { code, ok, exit_code, summary, trust, problems, not_checked, unsigned, failures } = verifyBundle(
      bundle,
      SERVICE_VIEW,
      new Date(),
      nodePublicKeyFromJwk,
    );
    const verdict = { code, ok, exit_code, summary, trust, problems, not_checked, unsigned };
    // Only when there are any: a sound bundle's answer stays what it was, byte for byte.
    return failures.length > 0 ? { ...verdict, failures } : verdict;
  } catch (err) {
    if (err instanceof BundleError) return cannotEvaluate(err.message);
    throw err;
  }
}

/** The caller's bundle, gathered in-process as the caller, with the service's own verdict on it. */
async function bundleOf(d: HttpDeps, caller: Principal, subject: BundleSubject) {
  const bundle = await answerGathering("gathering the evidence", () =>
    buildBundle(new CallerEvidence(d, caller), subject, new Date()),
  );
  return { ...bundle, service_verdict: serviceVerdict(bundle) };
}

/** Evidence bundles: a trail with its receipts, seals, consistency proofs and keys, in one file. */
export function evidenceRoutes(t: RouteTable, d: HttpDeps): void {
  // Made at the first export: the route table is also read without a service (OpenAPI, fuzzing).
  let slots: ExportSlots | undefined;
  const add = (path: string, kind: BundleSubject["kind"], summary: string) =>
    t.add({
      method: "get",
      path,
      group,
      auth: "token",
      summary,
      handler: async ({ principal, params, res }) => {
        const uuid = pathUuid(params.uuid, kind === "asset" ? "asset" : "vCon");
        slots ??= new ExportSlots(d.ctx.config.exportsPerTenancy);
        // A vCon's consent is decided by the records of the tenancy exporting it (its holder).
        const subject: BundleSubject =
          kind === "vcon" ? { kind, uuid, holder: `tenant/${principal.tenantId}` } : { kind, uuid };
        const bundle = await slots.run(principal.tenantId, () => bundleOf(d, principal, subject));
        return res
          .header("content-type", "application/json")
          .header("content-disposition", `attachment; filename="evidence-${kind}-${uuid}.json"`)
          .send(JSON.stringify(bundle));
      },
    });
  add(
    "/archivist/v1/evidence/assets/{uuid}",
    "asset",
    "Evidence bundle of an asset: its events, receipts, seals, consistency proofs, the keys and, when the caller may have it, the index lookup that proves it complete (verify offline)",
  );
  add(
    "/archivist/v1/evidence/vcons/{uuid}",
    "vcon",
    "Evidence bundle of a vCon: every event whose subject is vcon://{uuid} (asset events, asset-free events and registered statements), with receipts, seals, proofs, keys and, when the caller may have it, the index lookup that proves it complete",
  );
}
