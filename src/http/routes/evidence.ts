import type { FastifyRequest } from "fastify";
import { nodePublicKeyFromJwk } from "../../core/node/crypto.js";
import { ApiError } from "../../errors/api-error.js";
import { pathUuid } from "../../errors/path-uuid.js";
import { isUuid } from "../../formats/ids.js";
import { LookupError } from "../../lookup/public-api.js";
import { receiptsOfRecords } from "../../services/ledger/receipts-in-bulk.js";
import {
  BundleError,
  cannotEvaluate,
  type EvidenceBundle,
  emptyPolicy,
  type TrustRoots,
  type VerificationVerdict,
  verifyBundle,
} from "../../verify/index.js";
import { type BundleSubject, buildBundle, type ReceiptSource, type SourcedReceipt } from "../bundle-build.js";
import { callersApi } from "../callers-api.js";
import type { HttpDeps } from "../deps.js";
import { ExportSlots } from "../export-slots.js";
import type { RouteTable } from "../route.js";

const group = "evidencev1";

/**
 * The records' receipts read from the ledger many at a time. The records are those the
 * caller's own listing gave (so the caller may read each, as the receipt routes would check),
 * and the receipts are what those routes answer for them: a 1,001-record bundle took 2,002
 * requests through the routes, each a few reads, and most of the gathering's time.
 */
function ledgerReceipts(d: HttpDeps): ReceiptSource {
  return {
    async receipts(identities, profile) {
      const ids = identities.map((identity) => identity.slice(identity.lastIndexOf("/") + 1).toLowerCase());
      const made = await receiptsOfRecords(
        d.ctx,
        ids.filter((id) => isUuid(id)),
        profile,
      );
      const out = new Map<string, SourcedReceipt>();
      identities.forEach((identity, i) => {
        const r = made.get(ids[i] as string);
        if (r) out.set(identity, r);
      });
      return out;
    },
  };
}

/** The roots the service judges its own evidence under: none of the caller's, and it says so. */
const SERVICE_VIEW: TrustRoots = {
  policy: emptyPolicy(),
  described: [
    "the service's own keys as it serves them: its view of itself, not a trust root of yours (verify the bundle with your pinned keys: archivist verify --keys, or /verify)",
  ],
};

/**
 * The service's verdict on the evidence it gathered: the bundle checked offline with the keys it
 * carries (the service's own), so `self-consistent-unpinned` at best, never `verified`; a
 * `tampered` here means the service's own evidence contradicts itself.
 */
function serviceVerdict(bundle: EvidenceBundle): VerificationVerdict {
  try {
    const { code, ok, exit_code, summary, trust, problems, not_checked, unsigned } = verifyBundle(
      bundle,
      SERVICE_VIEW,
      new Date(),
      nodePublicKeyFromJwk,
    );
    return { code, ok, exit_code, summary, trust, problems, not_checked, unsigned };
  } catch (err) {
    if (err instanceof BundleError) return cannotEvaluate(err.message);
    throw err;
  }
}

async function bundleOf(req: FastifyRequest, d: HttpDeps, subject: BundleSubject) {
  try {
    const bundle = await buildBundle(callersApi(req, d.ctx.baseUrl), subject, new Date(), ledgerReceipts(d));
    return { ...bundle, service_verdict: serviceVerdict(bundle) };
  } catch (err) {
    // The gathering's requests count against the caller's rate limit like any others.
    if (err instanceof LookupError && err.status === 429)
      throw new ApiError("rate_limited", `gathering the evidence went over the rate limit: ${err.message}`);
    // What the caller cannot read is reported as not found: a bundle never says more than a list would.
    if (err instanceof LookupError) throw new ApiError("not_found", err.message);
    throw err;
  }
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
      handler: async ({ principal, params, req, res }) => {
        const uuid = pathUuid(params.uuid, kind === "asset" ? "asset" : "vCon");
        slots ??= new ExportSlots(d.ctx.config.exportsPerTenancy);
        // A vCon's consent is decided by the records of the tenancy exporting it (its holder).
        const subject: BundleSubject =
          kind === "vcon" ? { kind, uuid, holder: `tenant/${principal.tenantId}` } : { kind, uuid };
        const bundle = await slots.run(principal.tenantId, () => bundleOf(req, d, subject));
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
