// Entry point of the verify page bundle: reads a file or a typed id, looks up public
// records on this service and verifies them here with the core verifier.

import { looksLikeBundle } from "../formats/bundle/format.js";
import { type CoseFile, looksLikeCose, RECEIPT_ALONE, readCoseFile } from "../lookup/cose-file.js";
import { verifyDocumentHash } from "../lookup/document.js";
import {
  recordReceiptVerdict,
  serviceKeysFor,
  statementVerdict,
  tlogProofVerdict,
} from "../lookup/keyed-verdict.js";
import { lookupApi, lookupVerdict } from "../lookup/lookup-verdict.js";
import { PublicApi } from "../lookup/public-api.js";
import { sha256Hex } from "../lookup/sha256.js";
import { looksLikeVcon, vconUuidOf, verifyVcon } from "../lookup/vcon.js";
import type { TrustRoots, VerificationVerdict } from "../verify/index.js";
import { cannotEvaluate, witnessGroup } from "../verify/index.js";
import { renderBundle } from "./bundle-view.js";
import { consentReportView } from "./consent-report-view.js";
import { policyRoots } from "./policy-roots.js";
import {
  byId,
  el,
  renderDocument,
  renderVcon,
  showVerdict,
  showVerdictObject,
  trustView,
  verdictDetails,
} from "./render.js";
import { checkLog } from "./tlog.js";
import { looksLikeTlogProof, recordOfTlogProof } from "./tlog-proof.js";
import { PageWorker } from "./worker-client.js";

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

/** The caller's trust roots: the policy typed on the page (see policyRoots). */
const trustRoots = (): TrustRoots => policyRoots(byId<HTMLTextAreaElement>("policy").value);

interface Outcome {
  ok: boolean;
  verdict: string;
  view: HTMLElement;
  /** The shared verdict object: every check on this page gives one (the page colours by its code). */
  object: VerificationVerdict;
}

async function run(what: string, check: () => Promise<Outcome>) {
  showVerdict(verdict, undefined, `Checking ${what}…`);
  details.replaceChildren();
  try {
    const r = await check();
    details.replaceChildren(r.view);
    showVerdictObject(verdict, r.object);
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

interface Dropped {
  name: string;
  bytes: Uint8Array;
}

/** The service's keys as served, and the ones the caller's policy pins among them. */
async function servedKeys(trust: TrustRoots) {
  return serviceKeysFor(trust, await lookupApi(location.origin, trust).fetchedKeys());
}

const facts = (rows: Array<[string, string]>) => {
  const dl = el("dl", undefined, "facts");
  for (const [k, v] of rows) dl.append(el("dt", k), el("dd", v));
  return dl;
};

/** What a COSE file says of itself (unverified: the verdict says what holds). */
function coseView(name: string, c: CoseFile): HTMLElement {
  const box = el("div");
  box.id = "cose-file";
  box.dataset.kind = c.kind;
  box.append(
    el("h2", c.kind === "receipt" ? `Receipt ${name}` : `Signed statement ${name}`),
    c.kind === "receipt"
      ? facts([
          ["Profile", c.profile],
          ["Issued by (as it says)", c.issuer || "(not said)"],
          ["Log (as it says)", c.subject || "(not said)"],
        ])
      : facts([
          ["Issuer (as it says)", c.issuer || "(not said)"],
          ["Receipts it carries", String(c.receipts)],
        ]),
  );
  return box;
}

/**
 * COSE files, checked as `archivist verify` checks them: a statement (signed, or transparent with
 * its receipts, or with receipt files dropped beside it), a receipt with the record (.json) it
 * proves; a receipt alone proves nothing, since its signature covers a root only its record gives.
 */
async function checkCose(files: Dropped[]): Promise<Outcome> {
  const read = files.map((f) => {
    if (!looksLikeCose(f.bytes)) return { file: f, cose: undefined };
    try {
      return { file: f, cose: readCoseFile(f.bytes) };
    } catch (err) {
      throw new Error(`${f.name} is not a COSE_Sign1: ${(err as Error).message}`);
    }
  });
  const receipts = read.filter((r) => r.cose?.kind === "receipt");
  const statement = read.find((r) => r.cose?.kind === "statement");
  const record = read.find((r) => !r.cose);
  const trust = trustRoots();
  const view = el("div");
  for (const r of read) if (r.cose) view.append(coseView(r.file.name, r.cose));
  let v: VerificationVerdict;
  if (statement)
    v = statementVerdict(trust, await servedKeys(trust), statement.file.bytes, {
      receipts: receipts.map((r) => r.file.bytes),
    });
  else if (receipts[0] && record) {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(new TextDecoder().decode(record.file.bytes)) as Record<string, unknown>;
    } catch {
      throw new Error(`${record.file.name} is not the record's JSON`);
    }
    v = recordReceiptVerdict(trust, await servedKeys(trust), json, receipts[0].file.bytes);
  } else v = cannotEvaluate(RECEIPT_ALONE);
  view.append(verdictDetails(v));
  return { ok: v.ok, verdict: v.summary, view, object: v };
}

/** The worker bundles are checked in, ready before any is dropped. */
const checker = new PageWorker();

/**
 * An evidence bundle checked in the worker (a 1,000-record bundle took 2.7 s on the page's own
 * thread); a vCon's also shows its consent and processing, read from the records that verified.
 */
function checkBundleText(text: string): Promise<Outcome> {
  const policy = byId<HTMLTextAreaElement>("policy").value;
  return new Promise((resolve, reject) => {
    checker.run({ kind: "bundle", text, policy }, (a) => {
      if (a.kind === "error") return reject(new Error(a.message));
      if (a.kind !== "bundle") return;
      const r = a.report;
      if (!a.consent) return resolve({ ok: r.ok, verdict: r.summary, view: renderBundle(r), object: r });
      const view = el("div");
      view.append(
        consentReportView(a.consent, "the bundle's records whose receipts verified under the verdict's keys"),
        renderBundle(r),
      );
      const object = { ...r, consent_report: a.consent };
      resolve({ ok: r.ok, verdict: r.summary, view, object });
    });
  });
}

async function checkFiles(list: FileList | File[]): Promise<void> {
  const chosen = Array.from(list as ArrayLike<File>).slice(0, 4);
  const label = chosen.map((f) => f.name).join(" and ");
  showVerdict(verdict, undefined, `Reading ${label}…`);
  let files: Dropped[];
  try {
    files = await Promise.all(
      chosen.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })),
    );
  } catch (err) {
    return showVerdictObject(verdict, cannotEvaluate(`cannot read ${label}: ${(err as Error).message}`));
  }
  const mode = (document.querySelector('input[name="mode"]:checked') as HTMLInputElement | null)?.value;
  if (mode === "auto" && files.some((f) => looksLikeCose(f.bytes))) return run(label, () => checkCose(files));
  const first = files[0];
  if (!first) return;
  const { name, bytes } = first;
  // A tlog-proof names its record; the record and the log's key are read from this service.
  if (mode === "auto" && looksLikeTlogProof(bytes))
    return run(name, async () => {
      const trust = trustRoots();
      const text = new TextDecoder().decode(bytes);
      const { identity, record, servedLogKey } = await recordOfTlogProof(
        lookupApi(location.origin, trust),
        text,
      );
      const v = await tlogProofVerdict(trust, record, text, { served: servedLogKey });
      const view = el("div");
      view.append(el("p", identity), verdictDetails(v));
      return { ok: v.ok, verdict: v.summary, view, object: v };
    });
  // A bundle is checked offline, in the worker: against the keys it carries, with no look-up at all.
  if (mode === "bundle" || (mode === "auto" && looksLikeBundle(bytes)))
    return run(name, () => checkBundleText(new TextDecoder().decode(bytes)));
  const asVcon = mode === "vcon" || (mode !== "document" && looksLikeVcon(bytes));
  if (!asVcon) return run(name, checkHash(sha256Hex(bytes)));
  return run(name, () => lookedUp((a) => verifyVcon(a, { file: bytes }), renderVcon));
}

fileInput.addEventListener("change", () => {
  if (fileInput.files?.length) void checkFiles(fileInput.files);
});
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  if (e.dataTransfer?.files.length) void checkFiles(e.dataTransfer.files);
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
    const r = await checkLog(new PublicApi(location.origin), tenant, trust);
    const view = el("div");
    const p = el("p", r.size ? `${r.origin}: ${r.size} entries` : "");
    p.id = "log-report";
    view.append(p, verdictDetails(r));
    return { ok: r.ok, verdict: r.summary, view, object: r };
  });
});
