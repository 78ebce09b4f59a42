import type { FoundStatement } from "./console-data.js";
import { recordLink } from "./console-record.js";
import { el, timeView } from "./render.js";

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

export function statementsTable(found: FoundStatement[]): HTMLElement {
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
