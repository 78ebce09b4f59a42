import type { LogStatus } from "./log-status.js";
import { el, facts, hashView, timeView } from "./render.js";
import { markVerdict, verdictWord } from "./verdict-look.js";

function signatureItem(s: LogStatus["signatures"][number]): HTMLElement {
  const li = el("li");
  li.dataset.role = s.role;
  li.dataset.algorithm = s.algorithm;
  li.dataset.verified = String(s.verified);
  const who = s.role === "log" ? "log key" : s.role === "witness" ? "witness" : "unknown key";
  li.append(el("span", s.verified ? "✓" : "✗", s.verified ? "good" : "bad"), ` ${s.algorithm} · ${who}`);
  // The log's own lines carry the origin, shown above; a witness's or a stranger's, its name.
  if (s.role !== "log") li.append(" ", el("span", s.name, "hash"));
  li.append(s.verified ? " · verified" : " · does not verify");
  if (s.time) li.append(" · cosigned ", timeView(s.time));
  return li;
}

function witnessList(status: LogStatus): HTMLElement {
  if (!status.witnesses.length)
    return el(
      "p",
      "No witnesses are configured: nothing outside this service cosigns its checkpoints, so a split view is not ruled out.",
      "note",
    );
  const list = el("ul", undefined, "witness-list");
  list.id = "witness-list";
  for (const w of status.witnesses) {
    const li = el("li");
    li.dataset.name = w.name;
    li.append(el("span", w.name, "hash"), ` (${w.algorithm}): `);
    if (w.last_cosigned_size > 0)
      li.append(`last cosigned size ${w.last_cosigned_size}, `, timeView(w.last_cosigned_at));
    else li.append(el("span", "never cosigned", "warn"));
    list.append(li);
  }
  return list;
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
  const look = { code: status.code, level: status.level };
  const verdict = el("span", verdictWord(look), "verdict-tag");
  markVerdict(verdict, look);
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
    witnessList(status),
  );
  const when = el("p", "Checked ", "note");
  when.append(timeView(checkedAt.toISOString()), "; refreshed every few seconds.");
  box.append(when);
  return box;
}
