import { type AttributeStanding, erasableStandings, erasedWords } from "../formats/record/erasable.js";
import { consoleFragment } from "./console-link.js";
import type { Trail, TrailStep } from "./console-trail.js";
import { saveFile } from "./download.js";
import { el, facts, hashView, receiptView, timeView } from "./render.js";
import { DECLARED_GAP_LIMIT_MS, declaredGap } from "./time-gap.js";
import { trustWords } from "./trust.js";
import { markVerdict, receiptLook, verdictWord } from "./verdict-look.js";

/** A link to a record: its identity, opening the console at it. */
export function recordLink(identity: string): HTMLElement {
  const a = el("a", identity, "hash") as HTMLAnchorElement;
  a.href = consoleFragment({ kind: "record", identity });
  return a;
}

/** The card id of a record (its last uuid), for deep links to find it. */
export const cardId = (identity: string) => `record-${identity.split("/").at(-1) ?? identity}`;

const attributeText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** A committed (erasable) attribute in words: its checked value, who erased it, or that it is withheld. */
function standingText(st: AttributeStanding): string {
  if (st.state === "disclosed") return `${st.value} (erasable: matches its commitment)`;
  if (st.state === "erased") return erasedWords(st);
  if (st.state === "withheld") return "committed by a salted hash; its value is not disclosed to you";
  return `does NOT match its commitment: ${st.reason}`;
}

function attributesView(attrs: Record<string, unknown>, record: Record<string, unknown>): HTMLElement {
  const names = Object.keys(attrs).sort();
  const map = record.event_attributes !== undefined ? "event_attributes" : "attributes";
  const standings = new Map(
    erasableStandings(record)
      .filter((st) => st.map === map)
      .map((st) => [st.name, st]),
  );
  const box = el("details", undefined, "attributes");
  box.append(el("summary", `All ${names.length} attribute${names.length === 1 ? "" : "s"}`));
  const table = el("table", undefined, "plain kv");
  const body = el("tbody");
  for (const name of names) {
    const tr = el("tr");
    const st = standings.get(name);
    const td = el(
      "td",
      st ? standingText(st) : attributeText(attrs[name]),
      st ? `hash erasable ${st.state}` : "hash",
    );
    if (st) td.dataset.erasable = st.state;
    tr.append(el("th", name), td);
    body.append(tr);
  }
  table.append(body);
  box.append(table);
  return box;
}

function declaredView(step: TrailStep): HTMLElement {
  const box = el("span");
  box.append(timeView(step.facts.declared));
  const gap = declaredGap(step.facts.declared, step.facts.accepted);
  if (gap?.flagged) {
    const flag = el("span", `⚠ ${gap.words}`, "gap-flag");
    flag.title = `More than ${DECLARED_GAP_LIMIT_MS / 3_600_000} hours between the declared and the accepted time`;
    box.append(" ", flag);
  }
  return box;
}

function downloads(step: TrailStep): HTMLElement {
  const bar = el("div", undefined, "toolbar record-actions");
  const id = step.facts.identity.split("/").at(-1) ?? "record";
  const json = el("button", "Download JSON", "secondary small") as HTMLButtonElement;
  json.type = "button";
  json.dataset.action = "json";
  json.addEventListener("click", () =>
    saveFile(`record-${id}.json`, `${JSON.stringify(step.record, null, 2)}\n`, "application/json"),
  );
  bar.append(json);
  const receipt = step.receipt.ok ? step.receipt.receipts.mmr : undefined;
  if (receipt) {
    const b = el("button", "Download receipt", "secondary small") as HTMLButtonElement;
    b.type = "button";
    b.dataset.action = "receipt";
    b.title = `The COSE receipt (MMR profile) verified above. Offline, with the record's JSON beside it: archivist verify record-${id}.json --receipt receipt-${id}.cose --keys keys.cbor`;
    b.addEventListener("click", () => saveFile(`receipt-${id}.cose`, receipt, "application/cose"));
    bar.append(b);
  }
  return bar;
}

/** One record of a trail: what it says, when, from whom, and its receipt's verdict (`whose` keys it was checked under). */
export function recordCard(step: TrailStep, whose: string): HTMLElement {
  const f = step.facts;
  const li = el("li", undefined, "record");
  li.id = cardId(f.identity);
  li.dataset.identity = f.identity;
  // Not checked yet: no verdict at all on the card, rather than one the worker may not give.
  li.dataset.receipt = step.pending ? "pending" : String(step.receipt.ok);
  if (!step.pending) li.dataset.code = step.receipt.code;
  const gap = declaredGap(f.declared, f.accepted);
  li.dataset.gap = String(gap?.flagged ?? false);
  const head = el("div", undefined, "record-head");
  const look = step.pending ? undefined : receiptLook(step.receipt.code);
  const verdict = el("span", look ? verdictWord(look) : "VERIFYING…", "verdict-tag");
  markVerdict(verdict, look);
  head.append(
    el("h3", f.title),
    el("span", f.kind, "badge kind"),
    el("span", f.status || "UNKNOWN", `badge ${f.status}`),
    verdict,
  );
  const lifecycle = el("span", f.lifecycle, f.lifecycleKnown ? "lifecycle" : "lifecycle unknown");
  lifecycle.dataset.known = String(f.lifecycleKnown);
  const rows: Array<[string, Node | string]> = [
    ["Operation", f.operation || "(none)"],
    ["Lifecycle", lifecycle],
  ];
  if (f.payload) rows.push(["Payload", hashView(`${f.payload.algorithm} ${f.payload.hash}`)]);
  if (f.form) rows.push(["vCon form", f.form]);
  if (f.subject) rows.push(["Subject", f.subject]);
  rows.push(
    ["Declared", f.declared ? declaredView(step) : "(not declared)"],
    ["Accepted", timeView(f.accepted)],
    ["Accepted from", f.acceptedFrom || "(unknown)"],
    [
      "Receipt",
      step.pending ? el("span", "being verified in this browser…", "note") : receiptView(step.receipt, whose),
    ],
  );
  if (step.statement)
    rows.push([
      "Statement",
      `${step.statement.kind === "registered" ? "registered" : "signed"} statement, issuer ${step.statement.issuer}`,
    ]);
  rows.push(["Record", recordLink(f.identity)]);
  li.append(head, facts(rows), attributesView(f.attributes, step.record), downloads(step));
  return li;
}

/**
 * What the trail's words mean, said once above it: how receipts were checked and under whose
 * keys, what each status present means, and when a declared time is flagged.
 */
export function trailKey(t: Trail, fingerprints: string[], roots: string[]): HTMLElement {
  const box = el("section", undefined, "card trail-key");
  box.id = "trail-key";
  box.append(el("h3", "How to read this trail"));
  const keys = el(
    "p",
    roots.length
      ? "Each receipt is verified in this browser against the record and the keys this service serves " +
          `(/.well-known/scitt-keys), then judged by your trust roots (${roots.join(", ")}): VERIFIED (keys ` +
          "pinned, not witnessed) when a service key you pinned signed it (a receipt is checked under keys, " +
          "never witnesses: the log panel's checkpoint is what witnesses cosign), POLICY FAILED when none did."
      : "Each receipt is verified in this browser against the record and the keys this service serves " +
          "(/.well-known/scitt-keys). That proves the records are in its log as those keys say " +
          "(SELF-CONSISTENT, KEYS NOT PINNED), not that the keys are the service's: compare their fingerprints " +
          "out of band and give them as trust roots (the panel above), or verify the exported bundle with " +
          "pinned keys (archivist verify bundle --keys).",
  );
  box.append(keys);
  if (fingerprints.length) {
    const ul = el("ul", undefined, "fingerprints");
    for (const f of fingerprints) ul.append(el("li", f, "hash"));
    box.append(ul);
  }
  const levels = [...new Set(t.steps.map((s) => s.facts.status).filter(Boolean))];
  if (levels.length) {
    const dl = el("dl", undefined, "facts levels");
    for (const level of levels) {
      const dt = el("dt");
      dt.append(el("span", level, `badge ${level}`));
      dl.append(dt, el("dd", trustWords(level)));
    }
    box.append(dl);
  }
  box.append(
    el(
      "p",
      `⚠ marks a declared time more than ${DECLARED_GAP_LIMIT_MS / 3_600_000} hours before or after the time the service accepted the record.`,
      "note",
    ),
  );
  return box;
}
