// Entry point of the verify page bundle: reads a file or a typed id, looks up public
// records on this service and verifies them here with the core verifier.

import {
  cannotEvaluate,
  emptyPolicy,
  looksLikeBundle,
  parseBundle,
  parsePolicy,
  type TrustRoots,
  type VerificationVerdict,
  verifyBundle,
  witnessGroup,
} from "../verify/index.js";
import { verifyDocumentHash } from "./document.js";
import { lookupApi, lookupVerdict } from "./lookup-verdict.js";
import { PublicApi } from "./public-api.js";
import {
  el,
  renderBundle,
  renderDocument,
  renderVcon,
  showVerdict,
  showVerdictObject,
  trustView,
  verdictDetails,
} from "./render.js";
import { sha256Hex } from "./sha256.js";
import { checkLog } from "./tlog.js";
import { checkTlogProof, looksLikeTlogProof } from "./tlog-proof.js";
import { looksLikeVcon, vconUuidOf, verifyVcon } from "./vcon.js";

const api = new PublicApi(location.origin);
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const verdict = byId<HTMLDivElement>("verdict");
const details = byId<HTMLElement>("details");
const fileInput = byId<HTMLInputElement>("file");
const drop = byId<HTMLDivElement>("drop");
const lookup = byId<HTMLInputElement>("lookup");

for (const level of ["STORED", "COMMITTED", "CONFIRMED", "UNEQUIVOCAL"]) {
  const dd = el("dd");
  dd.append(trustView(level).lastChild ?? "");
  byId<HTMLElement>("trust-levels").append(el("dt", level), dd);
}

/**
 * The caller's trust roots: a policy pasted into the page (C2SP tlog-policy lines and
 * `service-key` fingerprints). The page is served by the service it checks, so nothing it
 * fetches from there is a root: without a policy the verdict is at best self-consistent.
 */
function trustRoots(): TrustRoots {
  const text = byId<HTMLTextAreaElement>("policy").value;
  if (!text.trim()) return { policy: emptyPolicy(), described: [] };
  return { policy: parsePolicy(text), described: ["the policy given on this page"] };
}

interface Outcome {
  ok: boolean;
  verdict: string;
  view: HTMLElement;
  /** The shared verdict object, when the check gives one (bundles). */
  object?: VerificationVerdict;
}

async function run(what: string, check: () => Promise<Outcome>) {
  showVerdict(verdict, undefined, `Checking ${what}…`);
  details.replaceChildren();
  try {
    const r = await check();
    details.replaceChildren(r.view);
    if (r.object) showVerdictObject(verdict, r.object);
    else showVerdict(verdict, r.ok, r.verdict);
  } catch (err) {
    showVerdictObject(verdict, cannotEvaluate((err as Error).message));
  }
  verdict.tabIndex = -1;
  verdict.focus();
}

/** A public look-up, judged by the caller's roots: the shared verdict object beside its report. */
async function lookedUp<R extends { ok: boolean; verdict: string }>(
  look: (api: PublicApi) => Promise<R>,
  render: (r: R) => HTMLElement,
): Promise<Outcome> {
  const trust = trustRoots();
  const api = lookupApi(location.origin, trust);
  const r = await look(api);
  const v = await lookupVerdict(api, r, trust);
  const view = el("div");
  view.append(render(r), verdictDetails(v));
  return { ok: v.ok, verdict: v.summary, view, object: v };
}

const checkHash = (hash: string) => () => lookedUp((a) => verifyDocumentHash(a, hash), renderDocument);

async function checkFile(file: File): Promise<void> {
  showVerdict(verdict, undefined, `Reading ${file.name}…`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (err) {
    return showVerdict(verdict, false, `FAILED: cannot read ${file.name}: ${(err as Error).message}`);
  }
  const mode = (document.querySelector('input[name="mode"]:checked') as HTMLInputElement | null)?.value;
  // A tlog-proof names its record; the record and the log's key are read from this service.
  if (mode === "auto" && looksLikeTlogProof(bytes))
    return run(file.name, async () => {
      const r = await checkTlogProof(api, new TextDecoder().decode(bytes));
      return { ok: r.ok, verdict: r.verdict, view: el("p", r.identity) };
    });
  // A bundle is checked offline: against the keys it carries, with no look-up at all.
  if (mode === "bundle" || (mode === "auto" && looksLikeBundle(bytes)))
    return run(file.name, async () => {
      const r = verifyBundle(parseBundle(new TextDecoder().decode(bytes)), trustRoots());
      return { ok: r.ok, verdict: r.summary, view: renderBundle(r), object: r };
    });
  const asVcon = mode === "vcon" || (mode !== "document" && looksLikeVcon(bytes));
  if (!asVcon) return run(file.name, checkHash(sha256Hex(bytes)));
  return run(file.name, () => lookedUp((a) => verifyVcon(a, { file: bytes }), renderVcon));
}

fileInput.addEventListener("change", () => {
  const f = fileInput.files?.[0];
  if (f) void checkFile(f);
});
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const f = e.dataTransfer?.files[0];
  if (f) void checkFile(f);
});
byId<HTMLFormElement>("file-form").addEventListener("submit", (e) => e.preventDefault());
byId<HTMLFormElement>("lookup-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = lookup.value.trim();
  const uuid = vconUuidOf(text);
  if (uuid) void run(`vcon://${uuid}`, () => lookedUp((a) => verifyVcon(a, { uuid }), renderVcon));
  else if (/^[0-9a-f]{64}$/i.test(text)) void run("the document hash", checkHash(text));
  else showVerdict(verdict, false, "Enter a vCon uuid, vcon://<uuid>, or a 64-digit SHA-256.");
});
byId<HTMLFormElement>("log-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const tenant = byId<HTMLInputElement>("log-tenant")
    .value.trim()
    .replace(/^tenant\//, "");
  const witnesses = byId<HTMLTextAreaElement>("log-witnesses")
    .value.split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
  const quorumText = byId<HTMLInputElement>("log-quorum").value.trim();
  void run(`the log of tenant/${tenant}`, async () => {
    const trust = trustRoots();
    if (witnesses.length) {
      witnessGroup(trust.policy, witnesses, quorumText === "" ? witnesses.length : Number(quorumText));
      trust.described.push(`${witnesses.length} witness key(s) typed in`);
    }
    const r = await checkLog(api, tenant, trust);
    const view = el("div");
    const p = el("p", r.size ? `${r.origin}: ${r.size} entries` : "");
    p.id = "log-report";
    view.append(p, verdictDetails(r));
    return { ok: r.ok, verdict: r.summary, view, object: r };
  });
});
