import type { BundleReport } from "../verify/index.js";
import { count, Pager } from "./pager.js";
import { claimedView, el, facts, hashView, timeView, verdictDetails } from "./render.js";

type BundleRecordReport = BundleReport["records"][number];

/** One record of a bundle: its identity, the trust proven, the status claimed, and each receipt's check. */
function recordItem(rec: BundleRecordReport): HTMLElement {
  const li = el("li");
  li.dataset.ok = String(rec.ok);
  const a = el("h3");
  a.append(hashView(rec.identity));
  const receipts = el("div");
  if (!rec.receipts.length) receipts.append(el("span", "no receipt: not sealed when exported", "bad"));
  for (const x of rec.receipts)
    receipts.append(
      el(
        "div",
        `${x.ok ? "receipt checks out under the verdict's keys" : "receipt does not verify"}: ${x.detail}`,
        x.ok ? "checked" : "bad",
      ),
    );
  li.append(
    a,
    facts([
      ["Proven trust", el("span", rec.trust, rec.trust === "witnessed" ? "good" : "warn")],
      ["Status the service claimed (unsigned)", claimedView(rec.claimed_confirmation_status)],
      ["Receipts", receipts],
    ]),
  );
  return li;
}

function logCard(l: BundleReport["logs"][number]): HTMLElement {
  const card = el("div", undefined, "card");
  card.dataset.ok = String(l.ok);
  const title = el("h3", "Log ");
  title.append(hashView(l.log));
  const rows: Array<[string, Node | string]> = [["Seals", el("span", l.detail, l.ok ? "checked" : "bad")]];
  if (l.ok) rows.push(["Latest seal", timeView(l.latest_time)]);
  if (l.checkpoint)
    rows.push([
      "Checkpoint",
      el(
        "span",
        l.checkpoint.witnessed
          ? `size ${l.checkpoint.size}, witnessed by ${l.checkpoint.cosigners.join(", ")}`
          : `size ${l.checkpoint.size}, not witnessed by any witness you trust (${l.checkpoint.cosignature_lines} cosignature line(s) not checked)`,
        l.checkpoint.witnessed ? "good" : "warn",
      ),
    ]);
  card.append(title, facts(rows));
  return card;
}

/**
 * Whether the bundle holds every record of its subject: green only when an index lookup proved it
 * under a log key you pinned, amber when only under the bundle's own, and not proven otherwise.
 */
function completenessView(c: BundleReport["completeness"]): HTMLElement {
  const tone = c.complete ? (c.pinned ? "good" : "warn") : "warn";
  const view = el("span", c.detail, tone);
  view.id = "bundle-completeness";
  view.dataset.complete = String(c.complete);
  return view;
}

/**
 * An evidence bundle's report: where it came from, its logs, then its records a page at a time
 * (a 1,000-record bundle drawn whole was 330,871 px tall), with how many verified.
 */
export function renderBundle(r: BundleReport): HTMLElement {
  const box = el("div");
  box.id = "bundle";
  const head = el("h2", "Evidence of ");
  head.append(hashView(r.subject));
  box.append(
    head,
    facts([
      ["Issued by (signed)", r.service || "no valid receipt"],
      ["Exported (unsigned)", timeView(r.created_at)],
      ["Completeness", completenessView(r.completeness)],
    ]),
  );
  for (const l of r.logs) box.append(logCard(l));
  const list = el("ol", undefined, "timeline") as HTMLOListElement;
  list.id = "bundle-records";
  const pager = new Pager(list, r.records.length, (i) => recordItem(r.records[i] as BundleRecordReport));
  const ok = r.records.filter((x) => x.ok).length;
  const counted = el("h3", `Records, in log order: ${count(ok)} of ${count(r.records.length)} verified`);
  counted.id = "bundle-count";
  box.append(counted, pager.nav, list, verdictDetails(r));
  return box;
}
