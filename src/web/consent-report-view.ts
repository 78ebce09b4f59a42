import type { ConsentReport, ReportStep } from "../verify/index.js";
import { el, hashView, headedCard, timeView } from "./render.js";

const STATE_WORDS = { granted: "GRANTED", revoked: "REVOKED", never_asked: "NEVER ASKED" } as const;

function stateBadge(state: keyof typeof STATE_WORDS): HTMLElement {
  const b = el("span", STATE_WORDS[state], `badge consent-${state} ${state === "granted" ? "ok" : "fail"}`);
  b.dataset.state = state;
  return b;
}

function table(headings: string[], rows: HTMLElement[], id: string): HTMLElement {
  const tbl = el("table", undefined, "plain consent-table");
  tbl.id = id;
  const head = el("tr");
  for (const h of headings) head.append(el("th", h));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  body.append(...rows);
  tbl.append(thead, body);
  return tbl;
}

/** A row whose `data-*` attributes name what it shows (the page's tests find rows by them). */
function row(data: Record<string, string>, ...cells: HTMLElement[]): HTMLElement {
  const tr = el("tr");
  Object.assign(tr.dataset, data);
  tr.append(...cells);
  return tr;
}

function cell(...content: Array<Node | string>): HTMLElement {
  const td = el("td");
  td.append(...content);
  return td;
}

/** A cell of one line per entry, each filled by `fill`; a dash when there is none. */
function linesCell<T>(entries: readonly T[], fill: (line: HTMLElement, entry: T) => void): HTMLElement {
  if (!entries.length) return cell("—");
  const td = el("td");
  for (const entry of entries) {
    const line = el("div");
    fill(line, entry);
    td.append(line);
  }
  return td;
}

/** When and which record, as a stack: the time, then its identity. */
const stepsCell = (steps: ReportStep[]): HTMLElement =>
  linesCell(steps, (line, s) => line.append(timeView(s.at), " ", hashView(s.identity)));

/** A heading and a list under it, one item per entry, each filled by `fill`; nothing when there is none. */
function listSection<T>(
  box: HTMLElement,
  heading: string,
  id: string,
  entries: readonly T[],
  fill: (li: HTMLElement, entry: T) => void,
  itemClass?: string,
): void {
  if (!entries.length) return;
  const ul = el("ul", undefined, "plain");
  ul.id = id;
  for (const entry of entries) {
    const li = el("li", undefined, itemClass);
    fill(li, entry);
    ul.append(li);
  }
  box.append(el("h4", heading), ul);
}

/** The finding's words and colour: an all-clear only where processing was there to be judged. */
function finding(r: ConsentReport): [string, string] {
  if (r.violations.length)
    return [
      `${r.violations.length} violation(s) of consent among ${r.processing.length} processing event(s)`,
      "bad",
    ];
  if (!r.processing.length)
    return ["No processing event recorded: consent was not judged (nothing here was processed)", "neutral"];
  return [`No violation of consent among ${r.processing.length} processing event(s)`, "good"];
}

/** The verdict in one line (violations first), what the report reads, and the unverified purposes. */
function bannerLines(box: HTMLElement, r: ConsentReport, source: string): void {
  const [words, tone] = finding(r);
  const banner = el("p", words, `${tone} consent-banner`);
  banner.dataset.tone = tone;
  banner.id = "consent-banner";
  banner.dataset.violations = String(r.violations.length);
  banner.dataset.unverified = String(r.unverified.length);
  box.append(
    banner,
    el(
      "p",
      `Read from ${r.read} record(s) proven in the log (${source}). A purpose is granted or revoked by its latest grant or revocation; a revocation naming no purpose revokes all; processing after a revocation, or without a grant, is a violation.`,
      "note",
    ),
  );
  const trail = el(
    "p",
    r.completeness.complete
      ? `Made from a complete trail: ${r.completeness.detail}.`
      : `Made from a trail ${r.completeness.detail}.`,
    r.completeness.complete ? "good" : "warn",
  );
  trail.id = "consent-completeness";
  trail.dataset.complete = String(r.completeness.complete);
  box.append(trail);
  if (r.unverified.length) {
    const u = el(
      "p",
      `${r.unverified.length} training or inference purpose(s) processed without a consent verification recorded before them.`,
      "warn",
    );
    u.id = "consent-unverified";
    box.append(u);
  }
}

/** Each purpose's state with its grants, reviews and revocations. */
function purposesSection(box: HTMLElement, r: ConsentReport): void {
  if (r.purposes.length)
    box.append(
      el("h4", "Purposes"),
      table(
        ["Purpose", "Now", "Granted", "Reviewed", "Revoked"],
        r.purposes.map((p) =>
          row(
            { purpose: p.purpose, state: p.state },
            cell(p.purpose),
            cell(stateBadge(p.state)),
            stepsCell(p.grants),
            stepsCell(p.reviews),
            stepsCell(p.revocations),
          ),
        ),
        "consent-purposes",
      ),
    );
  else box.append(el("p", "No consent for any purpose is recorded.", "note"));
  if (r.unscoped_grants.length)
    box.append(el("p", `${r.unscoped_grants.length} grant(s) name no purpose, and so grant none.`, "warn"));
}

/** Every processing event with the consent it had, its verifications and its finding. */
function processingSection(box: HTMLElement, r: ConsentReport): void {
  box.append(el("h4", "Processing"));
  if (r.processing.length)
    box.append(
      table(
        ["When", "What", "Purposes", "Consent then", "Verified before", "Finding"],
        r.processing.map((p) => {
          const verified = linesCell(p.verified, (line, v) => {
            if (v.verification) line.append(`${v.purpose}: `, hashView(v.verification));
            else
              line.append(
                el("strong", `${v.purpose}: UNVERIFIED (no verification recorded before it)`, "bad"),
              );
          });
          const consent = el("td");
          for (const c of p.consent) {
            const line = el("div");
            line.append(`${c.purpose}: `, stateBadge(c.state));
            consent.append(line);
          }
          const finding = p.violations.length
            ? cell(el("strong", `VIOLATION: ${p.violations.join("; ")}`, "bad"))
            : cell(el("span", "within consent", "good"));
          const what = el("td");
          what.append(el("div", p.label), hashView(p.identity));
          return row(
            {
              identity: p.identity,
              violation: String(p.violations.length > 0),
              unverified: String(p.verified.some((v) => !v.verification)),
            },
            cell(timeView(p.at)),
            what,
            cell(p.purposes.join(", ") || "(none)"),
            consent,
            verified,
            finding,
          );
        }),
        "consent-processing",
      ),
    );
  else box.append(el("p", "No processing of this vCon is recorded.", "note"));
}

/** Breaches, their stages and notification deadlines. */
function breachesSection(box: HTMLElement, r: ConsentReport): void {
  if (!r.breaches.length) return;
  const missed = r.breaches.flatMap((b) => b.deadlines.filter((d) => d.state === "missed"));
  box.append(el("h4", "Breaches"));
  const note = el(
    "p",
    missed.length
      ? `${missed.length} notification deadline(s) missed (judged at ${r.judged_at}).`
      : `No notification deadline missed (judged at ${r.judged_at}).`,
    missed.length ? "bad" : "good",
  );
  note.id = "consent-breach-banner";
  note.dataset.missed = String(missed.length);
  box.append(
    note,
    table(
      ["Breach", "Stage", "Steps", "Deadlines", "Findings"],
      r.breaches.map((b) => {
        const steps = el("td");
        for (const [step, s] of Object.entries(b.steps)) {
          const line = el("div");
          line.append(`${step.replace("_", " ")}: `, timeView(s.at), " ", hashView(s.identity));
          steps.append(line);
        }
        const deadlines = el("td");
        for (const d of b.deadlines) {
          const line = el("div", undefined, d.state === "missed" ? "bad" : d.state === "met" ? "good" : "");
          line.dataset.state = d.state;
          line.append(`${d.state === "missed" ? "MISSED" : d.state === "met" ? "met" : "open"}: ${d.detail}`);
          deadlines.append(line);
        }
        if (!b.deadlines.length) deadlines.append("—");
        return row(
          {
            breach: b.breach,
            stage: b.stage,
            missed: String(b.deadlines.some((d) => d.state === "missed")),
          },
          cell(b.breach || "(not named)"),
          cell(b.stage.replace("_", " ")),
          steps,
          deadlines,
          cell(b.findings.filter((f) => !f.startsWith("DEADLINE MISSED")).join("; ") || "—"),
        );
      }),
      "consent-breaches",
    ),
  );
}

/** Transfers of the vCon, each with its proof of the other party. */
function custodySection(box: HTMLElement, r: ConsentReport): void {
  if (!r.custody.length) return;
  box.append(
    el("h4", "Chain of custody"),
    table(
      ["When", "Transfer", "Other party", "Their proof"],
      r.custody.map((h) => {
        const what = el("td");
        what.append(
          el(
            "div",
            `${h.direction === "sent" ? "sent to" : "received from"} (transfer ${h.transfer_id || "not named"})`,
          ),
          hashView(h.identity),
        );
        const p = h.proof;
        const proof =
          p.state === "none"
            ? cell(el("span", "carries no proof of the other party", "warn"))
            : p.state === "failed"
              ? cell(el("strong", `does NOT hold: ${p.reason}`, "bad"))
              : cell(
                  el(
                    "span",
                    `their ${p.operation} receipt verifies (${p.keys === "pinned" ? "under keys you pinned" : `under the keys it carries: ${p.fingerprints.join(", ")}`})`,
                    p.keys === "pinned" ? "good" : "warn",
                  ),
                  " ",
                  hashView(p.record),
                );
        return row(
          { identity: h.identity, proof: h.proof.state },
          cell(timeView(h.at)),
          what,
          cell(h.peer || "(not named)"),
          proof,
        );
      }),
      "consent-custody",
    ),
  );
}

/** The processings refused for want of consent. */
function refusalsSection(box: HTMLElement, r: ConsentReport): void {
  listSection(box, "Refused", "consent-refusals", r.refusals, (li, f) =>
    li.append(
      timeView(f.at),
      ` ${f.refused_operation || "processing"} refused: ${f.reason} `,
      hashView(f.identity),
    ),
  );
}

/** The revocations processors acknowledged. */
function acknowledgementsSection(box: HTMLElement, r: ConsentReport): void {
  listSection(
    box,
    "Revocations acknowledged by processors",
    "consent-acknowledgements",
    r.acknowledgements,
    (li, a) =>
      li.append(
        timeView(a.at),
        ` ${a.processor || "a processor"} acknowledged `,
        hashView(a.revocation),
        " ",
        hashView(a.identity),
      ),
  );
}

/**
 * A vCon's consent and processing report, for a compliance officer: the verdict in one line
 * (violations first), each purpose's state with its grants, reviews and revocations, every
 * processing event with the consent it had, the refusals, and the records left out because they
 * did not verify. It says what the verified records show, never more.
 */
export function consentReportView(r: ConsentReport, source: string): HTMLElement {
  const box = headedCard("consent-report", "Consent and processing", "card consent-report");
  bannerLines(box, r, source);
  purposesSection(box, r);
  processingSection(box, r);
  refusalsSection(box, r);
  breachesSection(box, r);
  acknowledgementsSection(box, r);
  custodySection(box, r);
  listSection(box, "Erased personal data", "consent-erasures", r.erasures, (li, e) => {
    li.dataset.proven = String(e.erasure_proven);
    li.append(
      `${e.attribute} of `,
      hashView(e.record),
      ` erased by ${e.by} at `,
      timeView(e.at),
      ` under ${e.basis}; the record still verifies (its leaf holds the commitment). Erasure record `,
      hashView(e.erasure_record),
      e.erasure_proven ? " (proven in the log)" : " (not among these records)",
    );
  });
  listSection(
    box,
    "Left out (not proven)",
    "consent-left-out",
    r.left_out,
    (li, l) => li.append(hashView(l.identity), ` ${l.reason}`),
    "warn",
  );
  return box;
}
