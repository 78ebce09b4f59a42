// Entry point of the auditors' console bundle: sign in with client credentials (the token is
// kept in this page's memory only), pick an asset or a vCon from the table or find one, read its
// trail with each receipt verified here by the core verifier, its compliance, export its
// evidence bundle, and watch the tenancy's log. The address's fragment names what is shown.

import { consentReport } from "../core/lifecycle/report.js";
import { keyFingerprint, verdictLabel } from "../core/verdict/index.js";
import type { PublicKey } from "../verify/index.js";
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
import { type ConsoleLink, consoleFragment, parseConsoleLink } from "./console-link.js";
import { logPanelView } from "./console-log-panel.js";
import { cardId, recordCard, recordLink, trailKey } from "./console-record.js";
import { AssetTable } from "./console-table.js";
import { loadFreeEvent, loadTrail, type Trail } from "./console-trail.js";
import { logStatus } from "./log-status.js";
import { LookupError, type PublicApi } from "./public-api.js";
import { el, showVerdict, timeView } from "./render.js";

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = byId<HTMLDivElement>("status");
const signinSection = byId<HTMLElement>("signin");
const workspace = byId<HTMLElement>("workspace");
const result = byId<HTMLElement>("result");
const logPanel = byId<HTMLElement>("log-panel-body");
/** How often the log panel asks again, while the tab is visible. */
const LOG_REFRESH_MS = 5000;
let session: Session | undefined;
let shown: Trail | undefined;
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
  try {
    const st = await logStatus(api(s), s.tenant);
    if (session === s) logPanel.replaceChildren(logPanelView(st, new Date()));
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
  const box = el("section", undefined, "card");
  box.id = "compliance";
  box.setAttribute("aria-labelledby", "compliance-heading");
  const h = el("h3", "Compliance");
  h.id = "compliance-heading";
  box.append(h);
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
      const b = await exportBundle(api(s), target);
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
      // Self-consistent is what a bundle checked against its own keys can be: saved, not a failure.
      say(
        b.report.code !== "tampered" && b.report.code !== "cannot-evaluate",
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
  box.append(trailKey(t, prints));
  const verified = t.steps.filter((x) => x.receipt.ok).length;
  const kinds = [...new Set(t.steps.map((x) => x.facts.kind))].join(", ");
  box.append(
    el(
      "h3",
      `Trail: ${t.steps.length} record(s) (${kinds}), ${verified} receipt(s) verified in this browser`,
    ),
  );
  const list = el("ol", undefined, "timeline");
  list.id = "trail";
  list.setAttribute("aria-labelledby", "trail-heading");
  for (const x of t.steps) list.append(recordCard(x));
  box.append(list);
  return box;
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
 */
async function open(link: ConsoleLink | { kind: "either"; uuid: string }): Promise<void> {
  const s = session;
  if (!s) return;
  if (link.kind === "record" && shown?.steps.some((x) => x.facts.identity === link.identity)) {
    highlight(link.identity);
    say(true, `Showing ${link.identity} in its trail.`);
    return;
  }
  // A new question: the previous answer goes, so a "not found" never sits above an old trail.
  result.replaceChildren();
  shown = undefined;
  await guarded("Loading the trail and verifying its receipts", async () => {
    const a = api(s);
    let t: Trail;
    if (link.kind === "record")
      t = link.asset
        ? await loadTrail(a, { kind: "asset", uuid: link.asset }, link.asset)
        : await loadFreeEvent(a, link.identity);
    else if (link.kind === "either") {
      t = await loadTrail(a, "either", link.uuid);
      const named = consoleFragment(
        t.target.kind === "asset" ? { kind: "asset", uuid: link.uuid } : { kind: "vcon", uuid: link.uuid },
      );
      history.replaceState(null, "", named);
    } else t = await loadTrail(a, { kind: link.kind, uuid: link.uuid }, link.uuid);
    if (session !== s) return;
    shown = t;
    const served = await a.fetchedKeys().catch(() => undefined);
    result.replaceChildren(trailView(t, s, await fingerprints(a), served));
    const bad = t.steps.filter((x) => !x.receipt.ok).length;
    const code = bad === 0 ? (t.steps[0]?.receipt.code ?? "cannot-evaluate") : undefined;
    say(
      bad === 0,
      bad === 0
        ? `${verdictLabel(code ?? "cannot-evaluate")}: ${t.steps.length} record(s) of ${t.title}, every receipt valid under the keys this service serves`
        : `${bad} of ${t.steps.length} record(s) without a verified receipt (not sealed yet, or failed: see each record)`,
      code,
    );
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
byId<HTMLFormElement>("find-form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (!session) return signedOut();
  const text = byId<HTMLInputElement>("query").value;
  const target = parseTarget(text);
  if (!target) {
    result.replaceChildren();
    shown = undefined;
    return say(false, "Enter vcon://<uuid>, a vCon uuid, or assets/<uuid>.");
  }
  if (target !== "either") return go(target);
  // A bare uuid: the vCon it records, else the asset of that id.
  void open({ kind: "either", uuid: (text.trim().match(/[0-9a-f-]{36}/i)?.[0] ?? "").toLowerCase() });
});
