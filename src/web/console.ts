// Entry point of the auditors' console bundle: sign in with client credentials (the token is
// kept in this page's memory only), pick an asset or a vCon from the table or find one, read its
// trail with each receipt verified here by the core verifier, its compliance, export its
// evidence bundle, and watch the tenancy's log. The address's fragment names what is shown.

import { LookupError, type PublicApi } from "../lookup/public-api.js";
import { uuidOfVconFile, vconUuidOf } from "../lookup/vcon.js";
import { consentReport, keyFingerprint, pinsSomething, verdictLabel } from "../verify/house.js";
import { noTrust, type PublicKey, type TrustRoots, type VerdictCode } from "../verify/index.js";
import { consentReportView } from "./consent-report-view.js";
import {
  assetPage,
  callerApi,
  exportBundle,
  type FoundStatement,
  findStatements,
  parseTarget,
  type Session,
  type StatementField,
  signIn,
} from "./console-data.js";
import {
  isBareNumber,
  parseLogPlace,
  placeWords,
  recordAtPlace,
  recordsByPayload,
  vconPayloadHashes,
} from "./console-find.js";
import { type ConsoleLink, consoleFragment, parseConsoleLink } from "./console-link.js";
import { logPanelView } from "./console-log-panel.js";
import { cardId, recordCard, recordLink, trailKey } from "./console-record.js";
import { AssetTable } from "./console-table.js";
import { countsByKind, loadFreeEvent, loadTrail, type Trail } from "./console-trail.js";
import { consoleTrustRoots, trustSummary } from "./console-trust.js";
import { logStatus } from "./log-status.js";
import { byId, el, headedCard, showVerdict, timeView } from "./render.js";

const status = byId<HTMLDivElement>("status");
const signinSection = byId<HTMLElement>("signin");
const workspace = byId<HTMLElement>("workspace");
const result = byId<HTMLElement>("result");
const logPanel = byId<HTMLElement>("log-panel-body");
/** How often the log panel asks again, while the tab is visible. */
const LOG_REFRESH_MS = 5000;
let session: Session | undefined;
let shown: Trail | undefined;
/** The auditor's trust roots: in this page's memory only, like the token; every verdict is judged by them. */
let trust: TrustRoots = noTrust();
/** What the trail on show was opened as, to judge it again when the roots change. */
let shownLink: ConsoleLink | { kind: "either"; uuid: string } | undefined;
/**
 * Counts the trails asked for: a load that finishes after a later one was asked for (another
 * trail, or the same one under roots applied meanwhile) shows nothing, so no verdict on screen is
 * one of roots no longer applied.
 */
let asked = 0;
let logTimer: ReturnType<typeof setInterval> | undefined;

function say(ok: boolean | undefined, text: string, code?: string): void {
  status.hidden = false;
  showVerdict(status, ok, text);
  if (code) status.dataset.code = code;
  else delete status.dataset.code;
}

function signedOut(message?: string): void {
  session = undefined;
  shown = undefined;
  if (logTimer) clearInterval(logTimer);
  logTimer = undefined;
  workspace.hidden = true;
  signinSection.hidden = false;
  result.replaceChildren();
  byId<HTMLElement>("assets-result").replaceChildren();
  logPanel.replaceChildren();
  if (message) say(false, message);
  else status.hidden = true;
  byId<HTMLInputElement>("client-id").focus();
}

/** Runs a step; an expired or refused token signs the tab out with the reason. */
async function guarded(what: string, step: () => Promise<void>): Promise<void> {
  say(undefined, `${what}…`);
  try {
    await step();
  } catch (err) {
    failed(err);
  }
}

function failed(err: unknown): void {
  const message = (err as Error).message;
  if (/answered 401/.test(message)) signedOut("Your session has ended: sign in again.");
  else say(false, err instanceof LookupError ? message : `Failed: ${message}`);
}

const api = (s: Session): PublicApi => callerApi(location.origin, s);

const table = new AssetTable(
  {
    form: byId("assets-form"),
    filter: byId("asset-filter"),
    order: byId("asset-order"),
    out: byId("assets-result"),
    prev: byId("assets-prev"),
    nextButton: byId("assets-next"),
    pageLabel: byId("assets-page"),
  },
  (q) => {
    const s = session;
    if (!s) throw new LookupError("signed out");
    return assetPage(location.origin, s, q);
  },
  failed,
);

async function refreshLog(): Promise<void> {
  const s = session;
  if (!s || document.hidden) return;
  const roots = trust;
  try {
    const st = await logStatus(api(s), s.tenant, roots);
    // Judged by roots since replaced: the refresh the new roots started shows their verdict.
    if (session === s && trust === roots) logPanel.replaceChildren(logPanelView(st, new Date()));
  } catch (err) {
    if (session === s)
      logPanel.replaceChildren(el("p", `The log could not be read: ${(err as Error).message}`, "bad"));
  }
}

async function showWorkspace(s: Session): Promise<void> {
  signinSection.hidden = true;
  workspace.hidden = false;
  const who = byId<HTMLElement>("who");
  who.replaceChildren("Signed in as ", el("strong", s.name));
  if (s.name !== s.clientId) who.append(" ", el("span", `(client ${s.clientId})`, "hash"));
  try {
    const t = await api(s).json<{ display_name?: string }>("/archivist/v1/tenancies/self");
    if (t.display_name) who.append(` in ${t.display_name}`);
  } catch {
    // The tenancy's name is a courtesy: without it the line still names the application.
  }
  who.append(". The token is kept in this page's memory only.");
  await table.first();
  await refreshLog();
  logTimer = setInterval(() => void refreshLog(), LOG_REFRESH_MS);
}

async function fingerprints(a: PublicApi): Promise<string[]> {
  try {
    return [...(await a.fetchedKeys())].map(([kid, k]) => `${kid}: ${keyFingerprint(k)}`);
  } catch {
    return [];
  }
}

function complianceView(t: Trail): HTMLElement {
  const box = headedCard("compliance", "Compliance");
  for (const c of t.compliance) {
    if (t.compliance.length > 1) box.append(el("p", c.asset, "note hash"));
    if (!c.policies.length) {
      box.append(el("p", "No compliance policy applies to this asset.", "note"));
      continue;
    }
    const tbl = el("table", undefined, "plain");
    const head = el("tr");
    for (const th of ["Policy", "Status", "Why"]) head.append(el("th", th));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    for (const p of c.policies) {
      const tr = el("tr");
      tr.dataset.compliant = String(p.compliant);
      const st = el("td");
      st.append(
        el("span", p.compliant ? "COMPLIANT" : "NOT COMPLIANT", `badge ${p.compliant ? "ok" : "fail"}`),
      );
      tr.append(el("td", p.name), st, el("td", p.reason));
      body.append(tr);
    }
    tbl.append(thead, body);
    box.append(tbl);
  }
  return box;
}

/**
 * The vCon's consent and processing, read from the trail's records whose receipts verified in
 * this browser (under the keys the service serves); the exported bundle proves the same offline.
 */
function consentView(t: Trail, served: Map<string, PublicKey> | undefined): HTMLElement {
  // The asset events, as the vCon's bundle holds them: a link that also writes an asset-free copy
  // of each event (vcon-server's datatrails link) would otherwise count every consent twice.
  const events = t.steps.filter((x) => x.facts.kind === "asset event");
  const proven = events.filter((x) => x.receipt.ok);
  const leftOut = events
    .filter((x) => !x.receipt.ok)
    .map((x) => ({ identity: x.facts.identity, reason: x.receipt.ok ? "" : x.receipt.reason }));
  return consentReportView(
    // Transfers' proofs of the other party are checked under the served keys too: "carried" at best.
    consentReport(
      t.title,
      proven.map((x) => x.record),
      leftOut,
      { evidence: served },
    ),
    "receipts verified in this browser under the keys this service serves; export the bundle to prove it with keys you pin",
  );
}

function exportBar(t: Trail, s: Session): HTMLElement[] {
  const target = t.target;
  if (target.kind === "record") return [];
  const exportButton = el("button", "Export evidence bundle") as HTMLButtonElement;
  exportButton.type = "button";
  exportButton.id = "export";
  const exportStatus = el("p", undefined, "note");
  exportStatus.id = "export-status";
  exportStatus.setAttribute("aria-live", "polite");
  exportButton.addEventListener("click", () =>
    guarded("Exporting the evidence bundle", async () => {
      const b = await exportBundle(api(s), target, trust);
      const url = URL.createObjectURL(new Blob([b.text], { type: "application/json" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = b.name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      exportStatus.textContent = `Saved ${b.name}. Checked here before saving: ${b.report.summary}`;
      exportStatus.dataset.code = b.report.code;
      // Self-consistent is what a bundle checked without roots can be: saved, not a failure.
      say(
        b.report.code === "verified" || b.report.code === "self-consistent-unpinned",
        `Exported ${b.name}: ${b.report.summary}`,
        b.report.code,
      );
    }),
  );
  const toolbar = el("div", undefined, "toolbar");
  toolbar.append(
    exportButton,
    el("span", "One file anyone can check offline on /verify or with archivist verify bundle.", "note"),
  );
  return [toolbar, exportStatus];
}

/**
 * How the trail's count meets the asset table's: the table counts an asset's events (its
 * creation, NewAsset, included); a vCon's trail shows those naming the vCon, and its asset-free
 * events and registered statements besides.
 */
function assetCountsNote(t: Trail): HTMLElement {
  const p = el("p", undefined, "note");
  p.id = "trail-counts";
  for (const [i, c] of t.assetCounts.entries()) {
    const rest = c.total - c.inTrail;
    const link = el("a", c.name) as HTMLAnchorElement;
    link.href = consoleFragment({ kind: "asset", uuid: c.identity.replace(/^assets\//, "") });
    p.append(
      i ? " " : "",
      `The table counts ${c.total} asset event${c.total === 1 ? "" : "s"} on `,
      link,
      rest > 0
        ? `, its creation included: ${c.inTrail} name${c.inTrail === 1 ? "s" : ""} this vCon and ${c.inTrail === 1 ? "is" : "are"} in this trail; the other ${rest} ${rest === 1 ? "is" : "are"} on the asset's own trail.`
        : ": all of them are in this trail.",
    );
  }
  return p;
}

function trailView(t: Trail, s: Session, prints: string[], served?: Map<string, PublicKey>): HTMLElement {
  const box = el("div");
  const h = el("h2", t.title);
  h.id = "trail-heading";
  box.append(h);
  if (t.target.kind === "vcon" && t.assets.length) {
    // The assets that record this vCon, each a link to its own trail (creation included).
    const p = el("p", `Recorded on ${t.assets.length === 1 ? "asset" : "assets"} `, "note");
    p.id = "trail-assets";
    for (const [i, a] of t.assets.entries()) {
      const uuid = String(a.identity).replace(/^assets\//, "");
      const link = el(
        "a",
        String((a.attributes as Record<string, unknown> | undefined)?.arc_display_name || a.identity),
      ) as HTMLAnchorElement;
      link.href = consoleFragment({ kind: "asset", uuid });
      p.append(...(i ? [", "] : []), link);
    }
    box.append(p);
  }
  box.append(...exportBar(t, s));
  if (t.target.kind === "vcon") box.append(consentView(t, served));
  if (t.compliance.length) box.append(complianceView(t));
  box.append(trailKey(t, prints, pinsSomething(trust) ? trust.described : []));
  const verified = t.steps.filter((x) => x.receipt.ok).length;
  const counted = el(
    "h3",
    `Trail: ${t.steps.length} record(s): ${countsByKind(t.steps)}; ${verified} receipt(s) verified in this browser`,
  );
  counted.id = "trail-count";
  box.append(counted);
  if (t.assetCounts.length) box.append(assetCountsNote(t));
  const list = el("ol", undefined, "timeline");
  list.id = "trail";
  list.setAttribute("aria-labelledby", "trail-heading");
  const whose = pinsSomething(trust) ? "your trust roots" : "the keys this service serves";
  for (const x of t.steps) list.append(recordCard(x, whose));
  box.append(list);
  return box;
}

/** Severity of a receipt's verdict, worst first: the trail's verdict is its worst record's. */
const SEVERITY: VerdictCode[] = [
  "tampered",
  "policy-failed",
  "cannot-evaluate",
  "self-consistent-unpinned",
  "verified",
];

/** The trail's verdict line: its worst receipt's code, and how many records it holds. */
function trailVerdict(t: Trail): { ok: boolean; text: string; code: VerdictCode | undefined } {
  const n = t.steps.length;
  const worst = SEVERITY.find((c) => t.steps.some((x) => x.receipt.code === c)) ?? "cannot-evaluate";
  const failing = t.steps.filter((x) => !x.receipt.ok);
  if (failing.length === 0)
    return {
      ok: true,
      code: worst,
      text: `${verdictLabel(worst)}: ${n} record(s) of ${t.title}, every receipt valid under ${pinsSomething(trust) ? "your trust roots" : "the keys this service serves"}`,
    };
  const first = failing[0]?.receipt;
  if (worst === "policy-failed" && first && !first.ok)
    return {
      ok: false,
      code: worst,
      text: `${verdictLabel(worst)}: ${failing.length} of ${n} record(s) do not meet your trust roots (${first.reason})`,
    };
  return {
    ok: false,
    code: worst === "tampered" ? worst : undefined,
    text: `${failing.length} of ${n} record(s) without a verified receipt (not sealed yet, or failed: see each record)`,
  };
}

/** Marks one record of the shown trail and brings it into view. */
function highlight(identity: string): boolean {
  for (const old of Array.from(result.querySelectorAll("li.record.selected")))
    old.classList.remove("selected");
  const card = document.getElementById(cardId(identity));
  if (!card) return false;
  card.classList.add("selected");
  card.setAttribute("tabindex", "-1");
  card.scrollIntoView({ block: "start" });
  card.focus({ preventScroll: true });
  return true;
}

/**
 * Opens what a link names: a vCon's or an asset's trail, or a record within its trail; `either`
 * (a bare uuid) the vCon it records, else the asset of that id, then naming it in the address.
 * `rejudge` loads the trail again even when the record is on show: its verdicts were made under
 * other roots.
 */
async function open(link: ConsoleLink | { kind: "either"; uuid: string }, rejudge = false): Promise<void> {
  const s = session;
  if (!s) return;
  if (!rejudge && link.kind === "record" && shown?.steps.some((x) => x.facts.identity === link.identity)) {
    // The roots' next change opens the trail at this record.
    shownLink = link;
    highlight(link.identity);
    say(true, `Showing ${link.identity} in its trail.`);
    return;
  }
  // A new question: the previous answer goes, so a "not found" never sits above an old trail.
  result.replaceChildren();
  shown = undefined;
  shownLink = link;
  const ask = ++asked;
  const roots = trust;
  const current = () => session === s && ask === asked && trust === roots;
  await guarded("Loading the trail and verifying its receipts", async () => {
    const a = api(s);
    let t: Trail;
    if (link.kind === "record")
      t = link.asset
        ? await loadTrail(a, { kind: "asset", uuid: link.asset }, link.asset, roots)
        : await loadFreeEvent(a, link.identity, roots);
    else if (link.kind === "either") {
      t = await loadTrail(a, "either", link.uuid, roots);
      if (!current()) return;
      const named = consoleFragment(
        t.target.kind === "asset" ? { kind: "asset", uuid: link.uuid } : { kind: "vcon", uuid: link.uuid },
      );
      history.replaceState(null, "", named);
    } else t = await loadTrail(a, { kind: link.kind, uuid: link.uuid }, link.uuid, roots);
    if (!current()) return;
    const served = await a.fetchedKeys().catch(() => undefined);
    const prints = await fingerprints(a);
    if (!current()) return;
    shown = t;
    result.replaceChildren(trailView(t, s, prints, served));
    const { ok, text, code } = trailVerdict(t);
    say(ok, text, code);
    if (link.kind === "record") {
      if (!highlight(link.identity))
        say(false, `${link.identity} is not in its asset's trail as you may read it`);
      return;
    }
    byId<HTMLElement>("trail-heading").setAttribute("tabindex", "-1");
    byId<HTMLElement>("trail-heading").focus();
  });
}

/** Shows what the address names (called on sign-in and whenever the fragment changes). */
function followAddress(): void {
  const link = parseConsoleLink(location.hash);
  if (link && session) void open(link);
}

/** Goes to a link: through the address, so it can be copied, bookmarked and gone back to. */
function go(link: ConsoleLink): void {
  const fragment = consoleFragment(link);
  if (location.hash === fragment) void open(link);
  else location.hash = fragment;
}

window.addEventListener("hashchange", followAddress);
// A link to what the address already names changes nothing, so no hashchange: open it again
// (the trail it names may have gone with a later question).
document.addEventListener("click", (e) => {
  const a = e.target instanceof Element ? e.target.closest("a[href^='#']") : null;
  if (a && a.getAttribute("href") === location.hash) {
    e.preventDefault();
    followAddress();
  }
});

byId<HTMLFormElement>("signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const id = byId<HTMLInputElement>("client-id").value.trim();
  const secret = byId<HTMLInputElement>("client-secret").value;
  void guarded("Signing in", async () => {
    const s = await signIn(location.origin, id, secret);
    session = s;
    byId<HTMLInputElement>("client-secret").value = "";
    await showWorkspace(s);
    say(true, `Signed in as ${s.name}.`);
    byId<HTMLInputElement>("query").focus();
    followAddress();
  });
});

/** A table cell holding a node. */
function cell(n: Node): HTMLElement {
  const td = el("td");
  td.append(n);
  return td;
}

/** A digest shown by its ends (the whole in the title and for copying), so a row stays one glance wide. */
function shortHash(hex: string): HTMLElement {
  const td = el("td", hex.length > 20 ? `${hex.slice(0, 10)}…${hex.slice(-6)}` : hex, "hash");
  td.title = hex;
  return td;
}

const COLUMNS = ["Subject", "Kind", "Issuer", "Payload hash", "Accepted", "Record"];

function statementsTable(found: FoundStatement[]): HTMLElement {
  if (!found.length) return el("p", "No statement you may read matches.", "note");
  const tbl = el("table", undefined, "plain");
  tbl.id = "statements-table";
  const head = el("tr");
  for (const th of COLUMNS) head.append(el("th", th));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const f of found) {
    const tr = el("tr");
    const cells = [
      el("td", f.subject),
      el(
        "td",
        f.kind === "registered"
          ? "registered"
          : `made from ${f.kind === "event" ? "asset-free event" : "event"}`,
      ),
      el("td", f.issuer, "hash"),
      shortHash(f.payload_hash),
      cell(timeView(f.timestamp_accepted)),
      cell(recordLink(f.identity)),
    ];
    for (const [i, td] of cells.entries()) td.dataset.label = COLUMNS[i] ?? "";
    tr.append(...cells);
    body.append(tr);
  }
  tbl.append(thead, body);
  return tbl;
}

byId<HTMLFormElement>("statements-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const s = session;
  if (!s) return signedOut();
  const field = byId<HTMLSelectElement>("statement-field").value as StatementField;
  const value = byId<HTMLInputElement>("statement-value").value;
  const out = byId<HTMLElement>("statements-result");
  out.replaceChildren();
  void guarded("Finding statements", async () => {
    const found = await findStatements(api(s), field, value);
    out.replaceChildren(statementsTable(found));
    say(true, `${found.length} statement(s) found by ${field.replace("_", " ")}`);
  });
});
byId<HTMLButtonElement>("signout").addEventListener("click", () => signedOut());

const trustField = (id: string) => byId<HTMLInputElement | HTMLTextAreaElement>(id).value;

/** Uses new roots for every verdict: the log panel and the trail on show are judged again. */
function useTrust(roots: TrustRoots): void {
  trust = roots;
  const summary = byId<HTMLElement>("trust-summary");
  summary.textContent = trustSummary(roots);
  summary.dataset.pinned = String(pinsSomething(roots));
  void refreshLog();
  if (shownLink && session) void open(shownLink, true);
  else say(true, trustSummary(roots));
}

byId<HTMLFormElement>("trust-form").addEventListener("submit", (e) => {
  e.preventDefault();
  let roots: TrustRoots;
  try {
    roots = consoleTrustRoots({
      policy: trustField("trust-policy"),
      fingerprints: trustField("trust-fingerprints"),
      logKey: trustField("trust-log-key"),
      witnesses: trustField("trust-witnesses"),
      quorum: trustField("trust-quorum"),
    });
  } catch (err) {
    // The roots in use stay as they were: a typo never silently changes what is trusted.
    return say(false, `Trust roots refused, the ones in use are kept: ${(err as Error).message}`);
  }
  useTrust(roots);
});
byId<HTMLButtonElement>("trust-clear").addEventListener("click", () => {
  for (const id of ["trust-policy", "trust-fingerprints", "trust-log-key", "trust-witnesses", "trust-quorum"])
    byId<HTMLInputElement>(id).value = "";
  useTrust(noTrust());
});
/** A policy file chosen or dropped: its text goes into the policy field, to be read and applied. */
async function policyFile(file: File | undefined): Promise<void> {
  if (!file) return;
  byId<HTMLTextAreaElement>("trust-policy").value = await file.text();
}
const policyInput = byId<HTMLInputElement>("trust-policy-file");
policyInput.addEventListener("change", () => void policyFile(policyInput.files?.[0]));
byId<HTMLTextAreaElement>("trust-policy").addEventListener("dragover", (e) => e.preventDefault());
byId<HTMLTextAreaElement>("trust-policy").addEventListener("drop", (e) => {
  e.preventDefault();
  void policyFile(e.dataTransfer?.files[0]);
});
byId<HTMLFormElement>("find-form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (!session) return signedOut();
  const text = byId<HTMLInputElement>("query").value;
  const place = parseLogPlace(text);
  if (place) {
    const s = session;
    result.replaceChildren();
    shown = undefined;
    void guarded(`Finding ${placeWords(place)}`, async () => {
      const identity = await recordAtPlace(api(s), s.tenant, place);
      const asset = /^assets\/([0-9a-f-]{36})\//.exec(identity)?.[1];
      go(asset ? { kind: "record", identity, asset } : { kind: "record", identity });
    });
    return;
  }
  if (isBareNumber(text)) {
    // Log entry 7 is at MMR position 11: a bare number could name either record.
    result.replaceChildren();
    shown = undefined;
    const n = text.trim().replace("#", "");
    return say(
      false,
      `Which number is ${n}? Enter log entry ${n} (as checkpoints and tlog-proofs count) or mmr ${n} (the MMR position, as MMR receipts name it).`,
    );
  }
  const target = parseTarget(text);
  if (!target) {
    result.replaceChildren();
    shown = undefined;
    return say(false, "Enter vcon://<uuid>, a vCon uuid, assets/<uuid>, log entry <n> or mmr <position>.");
  }
  if (target !== "either") return go(target);
  // A bare uuid: the vCon it records, else the asset of that id.
  void open({ kind: "either", uuid: (text.trim().match(/[0-9a-f-]{36}/i)?.[0] ?? "").toLowerCase() });
});

/**
 * A vCon file dropped or chosen: its payload hashes (every mode the links hash in) find the
 * records that recorded this very version; its trail opens with them marked.
 */
async function findVconFile(file: File | undefined): Promise<void> {
  const s = session;
  if (!file || !s) return;
  result.replaceChildren();
  shown = undefined;
  await guarded(`Hashing ${file.name} and finding its records`, async () => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const hashes = vconPayloadHashes(bytes);
    const found = await recordsByPayload(api(s), hashes);
    const tried = hashes.flatMap((h) => h.modes).join(", ");
    if (!found.length)
      throw new LookupError(
        `no record you may read holds this file's payload hash (SHA-256 as ${tried}): not recorded, recorded as another version, or not yours to read`,
      );
    let uuid: string | undefined;
    try {
      uuid = uuidOfVconFile(bytes).uuid;
    } catch {
      uuid = vconUuidOf(found.find((f) => f.subject.startsWith("vcon://"))?.subject ?? "");
    }
    if (!uuid) {
      const only = found[0] as (typeof found)[number];
      go({ kind: "record", identity: only.identity });
      return;
    }
    await open({ kind: "vcon", uuid });
    if (session !== s || !shown) return;
    history.replaceState(null, "", consoleFragment({ kind: "vcon", uuid }));
    const marked = found.filter((f) => {
      const card = document.getElementById(cardId(f.identity));
      card?.classList.add("matched");
      if (card) card.dataset.matched = "true";
      return card !== null;
    });
    const first = marked[0];
    if (first) highlight(first.identity);
    const modes = [...new Set(marked.flatMap((f) => f.modes))].join(", ");
    say(
      marked.length > 0,
      marked.length
        ? `${file.name} is the version of vcon://${uuid} recorded by ${marked.length} record(s) (payload hash as ${modes}), marked in its trail`
        : `${file.name} matches ${found.length} record(s), none of them in the trail of vcon://${uuid}`,
    );
  });
}
const vconInput = byId<HTMLInputElement>("vcon-file");
vconInput.addEventListener("change", () => void findVconFile(vconInput.files?.[0]));
const vconDrop = byId<HTMLElement>("vcon-drop");
vconDrop.addEventListener("dragover", (e) => {
  e.preventDefault();
  vconDrop.classList.add("over");
});
vconDrop.addEventListener("dragleave", () => vconDrop.classList.remove("over"));
vconDrop.addEventListener("drop", (e) => {
  e.preventDefault();
  vconDrop.classList.remove("over");
  void findVconFile(e.dataTransfer?.files[0]);
});
