import { entryWords } from "../formats/mmr/indices.js";
import { type DocumentReport, versionLabel } from "../lookup/document.js";
import type { ReceiptCheck } from "../lookup/receipts.js";
import type { VconReport } from "../lookup/vcon.js";
import type { VerificationVerdict } from "../verify/index.js";
import { readableDate } from "./dates.js";
import { trustWords } from "./trust.js";
import { markVerdict } from "./verdict-look.js";

/** An element the page's HTML declares, by its id. */
export const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

// Everything from the service goes in through textContent, never as HTML.
export function el(tag: string, text?: string, className?: string): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

/** A card section named by its heading (`aria-labelledby`: `<id>-heading`), so a screen reader announces it. */
export function headedCard(id: string, heading: string, className = "card"): HTMLElement {
  const box = el("section", undefined, className);
  box.id = id;
  box.setAttribute("aria-labelledby", `${id}-heading`);
  const h = el("h3", heading);
  h.id = `${id}-heading`;
  box.append(h);
  return box;
}

/** A <time> showing the readable date, with the exact RFC 3339 value as its datetime and tooltip. */
export function timeView(iso: string): HTMLElement {
  const t = el("time", readableDate(iso));
  if (iso) {
    t.setAttribute("datetime", iso);
    t.title = iso;
  }
  return t;
}

/** A hash or identity: monospace, wrapping anywhere so it never widens a phone screen. */
export const hashView = (text: string): HTMLElement => el("code", text, "hash");

/** The trust level as a badge followed by what it means. */
export function trustView(level: string): HTMLElement {
  const box = el("span", undefined, "trust");
  box.append(
    el("span", level || "UNKNOWN", `badge ${level}`),
    document.createTextNode(" "),
    el("span", trustWords(level)),
  );
  return box;
}

/**
 * A record's status as the service states it on /verify: its claim, not what was proven, so its
 * badge is never coloured as a verdict (the verdict above says what holds).
 */
export function claimedView(level: string): HTMLElement {
  const box = el("span", undefined, "trust");
  box.append(
    el("span", level || "UNKNOWN", "badge claimed"),
    document.createTextNode(" "),
    el("span", trustWords(level)),
  );
  return box;
}

/**
 * A receipt's own check. It holds under the keys named (`whose`: the verdict's on /verify, the
 * served ones in the console), so it is never coloured as a verdict: the verdict says how far
 * those keys are trusted.
 */
export function receiptView(r: ReceiptCheck, whose = "the verdict's keys"): HTMLElement {
  if (!r.ok) return el("span", `receipt does not verify: ${r.reason}`, "bad");
  const profiles = r.profiles.map((p) => (p === "mmr" ? "MMR" : "RFC 9162")).join(" and ");
  const box = el(
    "span",
    `receipt checks out under ${whose} (${entryWords(r.mmrIndex)}; ${profiles} profile${r.profiles.length > 1 ? "s" : ""})`,
    "checked",
  );
  if (r.note) box.append(el("span", ` (${r.note})`, "note"));
  return box;
}

/** A definition list of label → value rows (values are nodes or text). */
export function facts(rows: Array<[string, Node | string]>): HTMLElement {
  const dl = el("dl", undefined, "facts");
  for (const [k, v] of rows) {
    const dd = el("dd");
    dd.append(typeof v === "string" ? document.createTextNode(v) : v);
    dl.append(el("dt", k), dd);
  }
  return dl;
}

function who(p: unknown): string {
  const o = (p ?? {}) as Record<string, unknown>;
  return String(o.display_name || o.email || o.subject || o.issuer || "(not declared)");
}

/** Sets the aria-live verdict: text and pass/fail state, no verdict code (a message, not a verdict). */
export function showVerdict(target: HTMLElement, ok: boolean | undefined, text: string): void {
  target.textContent = text;
  if (ok === undefined) target.removeAttribute("data-ok");
  else target.dataset.ok = String(ok);
  markVerdict(target, undefined);
}

/**
 * Sets the verdict from a verdict object: its summary, its code and level (coloured as every page
 * colours them: `verdictTone`), and moves focus to it so a screen reader and the eye land on the
 * outcome.
 */
export function showVerdictObject(target: HTMLElement, v: VerificationVerdict): void {
  target.textContent = v.summary;
  target.dataset.ok = String(v.ok);
  markVerdict(target, { code: v.code, level: v.trust.level });
  target.tabIndex = -1;
  target.focus();
}

/** What each trust level of a verdict means: a witnessed checkpoint is a state of its own. */
const LEVEL_WORDS: Record<VerificationVerdict["trust"]["level"], string> = {
  witnessed:
    "a checkpoint cosigned by a quorum of witnesses you trust covers it, so the log shown here is the one others see",
  pinned:
    "checked under keys you gave, with no witness cosignature you trust: the service could still show others a different log",
  unpinned:
    "checked only under keys the service or the evidence brought: anyone can make evidence that checks out this way",
};

/** The verdict's details: trust roots, key fingerprints to compare, what was not checked, what is unsigned. */
export function verdictDetails(v: VerificationVerdict): HTMLElement {
  const box = el("div", undefined, "verdict-details");
  box.id = "verdict-details";
  box.dataset.code = v.code;
  const list = (title: string, items: string[], id: string) => {
    if (!items.length) return;
    const u = el("ul");
    u.id = id;
    for (const x of items) u.append(el("li", x));
    box.append(el("h3", title), u);
  };
  box.append(
    facts([
      ["Verdict code", el("code", v.code)],
      [
        "Trust roots",
        v.trust.roots.length
          ? v.trust.roots.join(", ")
          : "none given: the keys below came with the evidence or from the service itself",
      ],
      [
        "Trust level",
        el("span", `${v.trust.level}: ${LEVEL_WORDS[v.trust.level]}`, `level ${v.trust.level}`),
      ],
    ]),
  );
  list("Problems", v.problems, "verdict-problems");
  list(
    "Keys (compare out of band)",
    v.trust.fingerprints.map((f) => `${f.kind} ${f.id}: ${f.fingerprint}${f.pinned ? " (pinned)" : ""}`),
    "verdict-keys",
  );
  list("Not checked", v.not_checked, "verdict-not-checked");
  list("Unsigned (no signature covers these)", v.unsigned, "verdict-unsigned");
  return box;
}

/** The published versions that carry a document's hash. */
export function renderDocument(r: DocumentReport): HTMLElement {
  const box = el("div");
  const head = el("p");
  head.append("Document SHA-256 ", hashView(r.sha256));
  box.append(el("h2", "Document"), head);
  const list = el("ul", undefined, "cards");
  list.id = "versions";
  list.style.listStyle = "none";
  list.style.padding = "0";
  for (const m of r.matches) {
    const li = el("li", undefined, "card");
    li.dataset.status = m.status;
    const status =
      m.status === "Withdrawn"
        ? "Withdrawn"
        : m.current
          ? "Published (current version)"
          : `Published, superseded by version ${m.superseded_by}`;
    const rows: Array<[string, Node | string]> = [
      ["Published", timeView(m.published_at)],
      ["Published by", who(m.principal_declared)],
      ["Accepted for", who(m.principal_accepted)],
    ];
    if (m.withdrawn_at) rows.push(["Withdrawn", timeView(m.withdrawn_at)]);
    rows.push(
      ["Status (the service's claim)", claimedView(m.confirmation_status)],
      ["Receipt", receiptView(m.receipt)],
    );
    if (m.withdrawal) rows.push(["Withdrawal receipt", receiptView(m.withdrawal.receipt)]);
    rows.push(["Record", hashView(m.event)]);
    li.append(el("h3", `${m.title || m.asset} — ${versionLabel(m.version)}: ${status}`), facts(rows));
    list.append(li);
  }
  box.append(list);
  return box;
}

/** A vCon's trail as a timeline, oldest first, each step with its trust level in words. */
export function renderVcon(r: VconReport): HTMLElement {
  const box = el("div");
  const head = el("h2", "Trail of ");
  head.append(hashView(r.subject));
  box.append(head);
  for (const h of r.hashes) {
    const p = el("p", `This file's SHA-256 (${h.form} form): `);
    p.append(hashView(h.sha256));
    box.append(p);
  }
  const list = el("ol", undefined, "timeline");
  list.id = "trail";
  for (const s of r.trail) {
    const li = el("li");
    li.dataset.operation = s.operation;
    if (s.matches.length) li.classList.add("match");
    li.append(
      el("h3", s.operation),
      facts([
        ["Declared", timeView(s.timestamp_declared)],
        ["By", who(s.principal_declared)],
        ["Status (the service's claim)", claimedView(s.confirmation_status)],
        ["Receipt", receiptView(s.receipt)],
      ]),
    );
    if (s.matches.length)
      li.append(
        el("p", `This file is the version recorded here (${s.matches.join(", ")} form).`, "good match"),
      );
    list.append(li);
  }
  box.append(list);
  return box;
}
