import { verdictLabel } from "../verify/index.js";
import type { LogStatus } from "./log-status.js";
import { el, facts, hashView, timeView } from "./render.js";

function signatureItem(s: LogStatus["signatures"][number]): HTMLElement {
  const li = el("li");
  li.dataset.role = s.role;
  li.dataset.algorithm = s.algorithm;
  li.dataset.verified = String(s.verified);
  const who = s.role === "log" ? "log key" : s.role === "witness" ? "witness" : "unknown key";
  li.append(
    el("span", s.verified ? "✓" : "✗", s.verified ? "good" : "bad"),
    ` ${s.algorithm} · ${who} `,
    el("span", s.name, "hash"),
  );
  if (s.time) li.append(" · cosigned ", timeView(s.time));
  return li;
}

function witnessTable(status: LogStatus): HTMLElement {
  if (!status.witnesses.length)
    return el(
      "p",
      "No witnesses are configured: nothing outside this service cosigns its checkpoints, so a split view is not ruled out.",
      "note",
    );
  const table = el("table", undefined, "plain witnesses");
  table.id = "witness-table";
  const head = el("tr");
  for (const h of ["Witness", "Key", "Last cosigned"]) head.append(el("th", h));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const w of status.witnesses) {
    const tr = el("tr");
    tr.dataset.name = w.name;
    const last = el("td");
    if (w.last_cosigned_size > 0) last.append(`size ${w.last_cosigned_size}, `, timeView(w.last_cosigned_at));
    else last.append(el("span", "never", "warn"));
    const name = el("td", w.name, "hash");
    name.dataset.label = "Witness";
    const key = el("td", w.algorithm);
    key.dataset.label = "Key";
    last.dataset.label = "Last cosigned";
    tr.append(name, key, last);
    body.append(tr);
  }
  table.append(thead, body);
  return table;
}

/** The live log panel's content: size, the newest checkpoint's signatures, the witnesses. */
export function logPanelView(status: LogStatus | undefined, checkedAt: Date): HTMLElement {
  const box = el("div");
  if (!status) {
    box.append(el("p", "No checkpoint yet: the log publishes its first at its first seal.", "note"));
    return box;
  }
  const size = el("strong", String(status.size));
  size.id = "log-size";
  size.dataset.size = String(status.size);
  const verdict = el("span", verdictLabel(status.code), "verdict-tag");
  verdict.dataset.code = status.code;
  box.append(
    facts([
      ["Log size", size],
      ["Origin", hashView(status.origin)],
      ["Root", hashView(status.root)],
      ["Checkpoint", verdict],
    ]),
  );
  if (status.problem) box.append(el("p", status.problem, "bad"));
  const sigs = el("ul", undefined, "signatures");
  sigs.id = "checkpoint-signatures";
  for (const s of status.signatures) sigs.append(signatureItem(s));
  box.append(el("h3", "Signatures, checked here"), sigs);
  box.append(
    el("h3", `Witnesses${status.witnesses.length ? ` (quorum ${status.quorum})` : ""}`),
    witnessTable(status),
  );
  const when = el("p", "Checked ", "note");
  when.append(timeView(checkedAt.toISOString()), "; refreshed every few seconds.");
  box.append(when);
  return box;
}
