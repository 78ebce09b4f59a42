// Entry point of the auditors' console bundle: sign in with client credentials (the token is
// kept in this page's memory only), find a vCon or an asset, show its trail with each
// receipt verified here by the core verifier, its compliance, and export its evidence bundle.
import {
  callerApi,
  exportBundle,
  type FoundStatement,
  findStatements,
  loadTrail,
  parseTarget,
  recentAssets,
  type Session,
  type StatementField,
  signIn,
  type Trail,
} from "./console-data.js";
import { LookupError, type PublicRecord } from "./public-api.js";
import { el, facts, hashView, receiptView, showVerdict, timeView, trustView, who } from "./render.js";

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const status = byId<HTMLDivElement>("status");
const signinSection = byId<HTMLElement>("signin");
const workspace = byId<HTMLElement>("workspace");
const result = byId<HTMLElement>("result");
let session: Session | undefined;

function say(ok: boolean | undefined, text: string): void {
  status.hidden = false;
  showVerdict(status, ok, text);
}

function signedOut(message?: string): void {
  session = undefined;
  workspace.hidden = true;
  signinSection.hidden = false;
  result.replaceChildren();
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
    const message = (err as Error).message;
    if (/answered 401/.test(message)) return signedOut("Your session has ended: sign in again.");
    say(false, err instanceof LookupError ? message : `Failed: ${message}`);
  }
}

async function showWorkspace(s: Session): Promise<void> {
  signinSection.hidden = true;
  workspace.hidden = false;
  byId<HTMLElement>("who").textContent =
    `Signed in as ${s.clientId}. The token is kept in this page's memory only.`;
  const list = byId<HTMLUListElement>("recent-list");
  list.replaceChildren();
  for (const a of await recentAssets(callerApi(location.origin, s))) list.append(recentItem(a));
  if (!list.children.length) list.append(el("li", "No assets you may read yet.", "note"));
}

function recentItem(a: PublicRecord): HTMLElement {
  const li = el("li");
  const attrs = (a.attributes ?? {}) as Record<string, unknown>;
  const b = el(
    "button",
    String(attrs.arc_display_name || attrs.arc_display_type || a.identity),
    "link",
  ) as HTMLButtonElement;
  b.type = "button";
  b.append(el("span", String(a.identity), "note hash"));
  b.addEventListener("click", () => void find(String(a.identity)));
  li.append(b);
  return li;
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
    const table = el("table", undefined, "plain");
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
    table.append(thead, body);
    box.append(table);
  }
  return box;
}

function stepView(record: PublicRecord, receipt: Parameters<typeof receiptView>[0]): HTMLElement {
  const li = el("li");
  const ea = (record.event_attributes ?? {}) as Record<string, unknown>;
  li.dataset.identity = String(record.identity);
  li.dataset.receipt = String(receipt.ok);
  li.append(
    el("h3", String(ea.vcon_operation ?? ea.arc_display_type ?? record.operation ?? "event")),
    facts([
      ["Operation", String(record.operation ?? "")],
      ...(ea.payload
        ? [
            ["Payload", hashView(`${String(ea.payload_hash_alg ?? "")} ${String(ea.payload)}`.trim())] as [
              string,
              Node,
            ],
          ]
        : []),
      ...(ea.subject ? [["Subject", String(ea.subject)] as [string, string]] : []),
      ["Declared", timeView(String(ea.timestamp_declared ?? record.timestamp_declared ?? ""))],
      ["Accepted", timeView(String(record.timestamp_accepted ?? ""))],
      // Who the service accepted the record from (the caller it authenticated); what the
      // writer declared, only when it declared something.
      ["By", who(record.principal_accepted)],
      ["Trust", trustView(String(record.confirmation_status ?? ""))],
      ["Receipt", receiptView(receipt)],
      ["Record", hashView(String(record.identity))],
    ]),
  );
  return li;
}

function trailView(t: Trail, s: Session): HTMLElement {
  const box = el("div");
  const h = el("h2", t.title);
  h.id = "trail-heading";
  const exportButton = el("button", "Export evidence bundle") as HTMLButtonElement;
  exportButton.type = "button";
  exportButton.id = "export";
  const exportStatus = el("p", undefined, "note");
  exportStatus.id = "export-status";
  exportStatus.setAttribute("aria-live", "polite");
  exportButton.addEventListener("click", () =>
    guarded("Exporting the evidence bundle", async () => {
      const b = await exportBundle(callerApi(location.origin, s), t.target);
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
      );
    }),
  );
  const toolbar = el("div", undefined, "toolbar");
  toolbar.append(
    exportButton,
    el("span", "One file anyone can check offline on /verify or with archivist verify bundle.", "note"),
  );
  box.append(h, toolbar, exportStatus, complianceView(t));
  const verified = t.steps.filter((x) => x.receipt.ok).length;
  box.append(el("h3", `Trail: ${t.steps.length} record(s), ${verified} receipt(s) verified in this browser`));
  const list = el("ol", undefined, "timeline");
  list.id = "trail";
  list.setAttribute("aria-labelledby", "trail-heading");
  for (const x of t.steps) list.append(stepView(x.record, x.receipt));
  box.append(list);
  return box;
}

async function find(text: string): Promise<void> {
  const s = session;
  if (!s) return signedOut();
  const target = parseTarget(text);
  if (!target) return say(false, "Enter vcon://<uuid>, a vCon uuid, or assets/<uuid>.");
  const uuid =
    target === "either" ? (text.trim().match(/[0-9a-f-]{36}/i)?.[0] ?? "").toLowerCase() : target.uuid;
  // A new question: the previous answer goes, so a "not found" never sits above an old trail.
  result.replaceChildren();
  await guarded("Loading the trail and verifying its receipts", async () => {
    const t = await loadTrail(callerApi(location.origin, s), target, uuid);
    result.replaceChildren(trailView(t, s));
    const bad = t.steps.filter((x) => !x.receipt.ok).length;
    say(
      bad === 0,
      bad === 0
        ? `VERIFIED: ${t.steps.length} record(s) of ${t.title}, every receipt valid`
        : `${bad} of ${t.steps.length} record(s) without a verified receipt (not sealed yet, or failed: see each record)`,
    );
    byId<HTMLElement>("trail-heading").setAttribute("tabindex", "-1");
    byId<HTMLElement>("trail-heading").focus();
  });
}

byId<HTMLFormElement>("signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const id = byId<HTMLInputElement>("client-id").value.trim();
  const secret = byId<HTMLInputElement>("client-secret").value;
  void guarded("Signing in", async () => {
    session = await signIn(location.origin, id, secret);
    byId<HTMLInputElement>("client-secret").value = "";
    await showWorkspace(session);
    say(true, `Signed in as ${id}.`);
    byId<HTMLInputElement>("query").focus();
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
  const table = el("table", undefined, "plain");
  table.id = "statements-table";
  const head = el("tr");
  for (const th of ["Subject", "Kind", "Issuer", "Payload hash", "Accepted", "Record"])
    head.append(el("th", th));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const f of found) {
    const tr = el("tr");
    const record = el("td");
    const asset = f.identity.match(/^assets\/[0-9a-f-]{36}/)?.[0];
    if (asset) {
      const b = el("button", f.identity, "link hash") as HTMLButtonElement;
      b.type = "button";
      b.addEventListener("click", () => void find(asset));
      record.append(b);
    } else record.append(el("span", f.identity, "hash"));
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
      record,
    ];
    for (const [i, td] of cells.entries()) td.dataset.label = COLUMNS[i] ?? "";
    tr.append(...cells);
    body.append(tr);
  }
  table.append(thead, body);
  return table;
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
    const found = await findStatements(callerApi(location.origin, s), field, value);
    out.replaceChildren(statementsTable(found));
    say(true, `${found.length} statement(s) found by ${field.replace("_", " ")}`);
  });
});
byId<HTMLButtonElement>("signout").addEventListener("click", () => signedOut());
byId<HTMLFormElement>("find-form").addEventListener("submit", (e) => {
  e.preventDefault();
  void find(byId<HTMLInputElement>("query").value);
});
