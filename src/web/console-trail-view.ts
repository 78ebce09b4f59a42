import type { ReceiptCheck } from "../lookup/receipts.js";
import type { PublicKey } from "../verify/index.js";
import { assetCountsNote, complianceView } from "./console-compliance.js";
import { consentView } from "./console-consent.js";
import { type ExportPage, exportBar } from "./console-export.js";
import { consoleFragment } from "./console-link.js";
import { cardId, recordCard, trailKey } from "./console-record.js";
import { countsByKind, type Trail } from "./console-trail.js";
import { count, Pager } from "./pager.js";
import { el } from "./render.js";

/** How the trail on show was judged: the key fingerprints, the roots' words, whose keys. */
export interface TrailJudge {
  prints: string[];
  /** Whether the applied roots pin anything, and their descriptions when they do. */
  pinned: boolean;
  described: string[];
}

/** The assets that record a vCon, each a link to its own trail (creation included). */
function assetsLine(t: Trail): HTMLElement {
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
  return p;
}

/**
 * A trail on screen while its receipts are checked: its records a page at a time (each card
 * saying VERIFYING… until the worker's check of it comes in), how many are checked so far, and,
 * once all are, its consent and its counts. A 1,000-record trail drawn whole was 492,520 px tall.
 */
export class TrailScreen {
  readonly root = el("div");
  private readonly pager: Pager;
  private readonly position: Map<string, number>;
  private readonly whose: string;
  /** The applied roots, described, when they pin anything (none: the served keys judged). */
  private readonly roots: string[];
  private readonly consent = el("div");
  private readonly compliance = el("div");
  private readonly counted = el("h3");
  private readonly countsNote = el("div");
  private readonly progress = el("p", undefined, "note progress");
  private readonly bar = el("progress") as HTMLProgressElement;
  private selected: string | undefined;
  private readonly matched = new Set<string>();
  private verified = 0;

  constructor(
    readonly trail: Trail,
    judge: TrailJudge,
    exportPage: ExportPage,
  ) {
    const t = trail;
    this.whose = judge.pinned ? "your trust roots" : "the keys this service serves";
    this.roots = judge.pinned ? judge.described : [];
    this.position = new Map(t.steps.map((x, i) => [x.facts.identity, i]));
    const h = el("h2", t.title);
    h.id = "trail-heading";
    this.root.append(h);
    if (t.target.kind === "vcon" && t.assets.length) this.root.append(assetsLine(t));
    this.root.append(...exportBar(t, exportPage), this.consent, this.compliance);
    this.root.append(trailKey(t, judge.prints, judge.pinned ? judge.described : []));
    this.counted.id = "trail-count";
    this.counted.textContent = `Trail: ${t.steps.length} record(s): ${countsByKind(t.steps)}; verifying receipts in this browser…`;
    this.progress.id = "trail-progress";
    this.progress.setAttribute("aria-live", "polite");
    this.bar.max = t.steps.length;
    this.bar.value = 0;
    this.showProgress(0);
    const list = el("ol", undefined, "timeline") as HTMLOListElement;
    list.id = "trail";
    list.setAttribute("aria-labelledby", "trail-heading");
    this.pager = new Pager(list, t.steps.length, (i) => this.card(i));
    this.root.append(this.counted, this.countsNote, this.progress, this.bar, this.pager.nav, list);
  }

  private card(i: number): HTMLElement {
    const step = this.trail.steps[i];
    if (!step) return el("li");
    const li = recordCard(step, this.whose);
    if (this.matched.has(step.facts.identity)) {
      li.classList.add("matched");
      li.dataset.matched = "true";
    }
    if (this.selected === step.facts.identity) {
      li.classList.add("selected");
      li.setAttribute("tabindex", "-1");
    }
    return li;
  }

  private showProgress(done: number): void {
    const n = this.trail.steps.length;
    this.progress.dataset.done = String(done);
    this.progress.dataset.total = String(n);
    this.progress.textContent =
      done < n
        ? `Verifying receipts in this browser: ${count(done)} of ${count(n)} checked, ${count(this.verified)} verified so far.`
        : `Verified in this browser: ${count(this.verified)} of ${count(n)} receipt(s) check out.`;
    this.bar.value = done;
    this.bar.hidden = done >= n;
  }

  /** The worker's checks of some records (by their place in the trail), and how many it has done. */
  checked(checks: Array<[number, ReceiptCheck]>, done: number): void {
    for (const [i, receipt] of checks) {
      const step = this.trail.steps[i];
      if (!step) continue;
      step.receipt = receipt;
      step.pending = false;
      if (receipt.ok) this.verified++;
      this.pager.redraw(i);
    }
    this.showProgress(done);
  }

  /** The trail's compliance and how its records meet each asset's count, once read. */
  context(c: Pick<Trail, "compliance" | "assetCounts">): void {
    this.trail.compliance = c.compliance;
    this.trail.assetCounts = c.assetCounts;
    this.compliance.replaceChildren(...(c.compliance.length ? [complianceView(this.trail)] : []));
    this.countsNote.replaceChildren(...(c.assetCounts.length ? [assetCountsNote(this.trail)] : []));
  }

  /** Every receipt checked: the counts, and a vCon's consent read from the records that verified. */
  finish(served: Map<string, PublicKey> | undefined): void {
    const t = this.trail;
    this.showProgress(t.steps.length);
    this.counted.textContent = `Trail: ${t.steps.length} record(s): ${countsByKind(t.steps)}; ${this.verified} receipt(s) verified in this browser`;
    if (t.target.kind === "vcon") this.consent.replaceChildren(consentView(t, served, this.roots));
  }

  /** Marks one record and brings it into view (turning to its page); false when it is not in this trail. */
  select(identity: string): boolean {
    const i = this.position.get(identity);
    if (i === undefined) return false;
    this.selected = identity;
    this.pager.show(this.pager.pageOf(i));
    const card = document.getElementById(cardId(identity));
    if (!card) return false;
    card.scrollIntoView({ block: "start" });
    card.focus({ preventScroll: true });
    return true;
  }

  /** Whether the record is in this trail. */
  holds(identity: string): boolean {
    return this.position.has(identity);
  }

  /**
   * Gives the selected record's card the focus again when a redraw took it away (a checked
   * receipt redraws its card, and the focus it held goes to the page), never from where the
   * reader has moved it since: a verdict arriving must not take the find box from under their typing.
   */
  refocus(): void {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    if (this.selected) document.getElementById(cardId(this.selected))?.focus({ preventScroll: true });
  }

  /** Marks the records a dropped file matched; those in this trail, in its order. */
  mark(identities: string[]): string[] {
    const inTrail = identities.filter((id) => this.position.has(id));
    for (const id of inTrail) this.matched.add(id);
    const first = inTrail[0];
    if (first) this.select(first);
    return inTrail;
  }
}
