import type { DocumentReport } from "./document.js";
import type { ReceiptCheck } from "./receipts.js";
import type { VconReport } from "./vcon.js";

// Everything from the service goes in through textContent, never as HTML.
function el(tag: string, text?: string, className?: string): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function receipt(r: ReceiptCheck): HTMLElement {
  return r.ok
    ? el(
        "span",
        `receipt verified (log entry ${r.mmrIndex}; ${r.profiles.map((p) => (p === "mmr" ? "MMR" : "RFC 9162")).join(" and ")} profiles)`,
        "good",
      )
    : el("span", `receipt not verified: ${r.reason}`, "bad");
}

function who(p: unknown): string {
  const o = (p ?? {}) as Record<string, unknown>;
  return String(o.display_name || o.email || o.subject || o.issuer || "(not declared)");
}

/** Sets the aria-live verdict: text and pass/fail state. */
export function showVerdict(target: HTMLElement, ok: boolean | undefined, text: string): void {
  target.textContent = text;
  if (ok === undefined) target.removeAttribute("data-ok");
  else target.dataset.ok = String(ok);
}

/** The published versions that carry a document's hash. */
export function renderDocument(r: DocumentReport): HTMLElement {
  const box = el("div");
  box.append(el("h2", "Document"), el("p", `SHA-256 ${r.sha256}`));
  const list = el("ul");
  list.id = "versions";
  for (const m of r.matches) {
    const li = el("li");
    li.dataset.status = m.status;
    const status =
      m.status === "Withdrawn"
        ? `Withdrawn at ${m.withdrawn_at}`
        : m.current
          ? "Published (current version)"
          : `Published, superseded by version ${m.superseded_by}`;
    li.append(
      el("strong", `${m.title || m.asset} — version ${m.version}: ${status}`),
      el(
        "div",
        `Published ${m.published_at} by ${who(m.principal_declared)}; accepted for ${who(m.principal_accepted)}`,
      ),
      el("div", `Trust: ${m.confirmation_status}`),
      receipt(m.receipt),
    );
    list.append(li);
  }
  box.append(list);
  return box;
}

/** A vCon's trail as a timeline, oldest first, each step with its trust level. */
export function renderVcon(r: VconReport): HTMLElement {
  const box = el("div");
  box.append(el("h2", `Trail of ${r.subject}`));
  for (const h of r.hashes) box.append(el("p", `File SHA-256 (${h.form}): ${h.sha256}`));
  const list = el("ol", undefined, "timeline");
  list.id = "trail";
  for (const s of r.trail) {
    const li = el("li");
    li.dataset.operation = s.operation;
    const time = el("time", s.timestamp_declared);
    time.setAttribute("datetime", s.timestamp_declared);
    li.append(
      time,
      el("span", ` ${s.operation} `),
      el("span", s.confirmation_status, `trust ${s.confirmation_status}`),
      el("div", `by ${who(s.principal_declared)}`),
      receipt(s.receipt),
    );
    if (s.matches.length)
      li.append(
        el("div", `This file is the version recorded here (${s.matches.join(", ")} form).`, "good match"),
      );
    list.append(li);
  }
  box.append(list);
  return box;
}
