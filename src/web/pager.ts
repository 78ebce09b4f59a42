import { el } from "./render.js";

/** Records a page shows: the page's height stays bounded however long the trail. */
const PAGE_SIZE = 50;

/** A count as the pages write it: "1,000". */
export const count = (n: number) => n.toLocaleString("en-US");

/**
 * A long list shown a page at a time: `item(i)` draws the i-th entry, only for the entries of the
 * page on show, with "Previous" and "Next" and where the page is ("records 51–100 of 1,000").
 * The navigation is hidden while everything fits on one page.
 */
export class Pager {
  readonly nav = el("div", undefined, "toolbar pager");
  private page = 0;
  private readonly label = el("span", undefined, "note");
  private readonly prev = el("button", "Previous", "secondary small") as HTMLButtonElement;
  private readonly next = el("button", "Next", "secondary small") as HTMLButtonElement;

  constructor(
    readonly list: HTMLOListElement,
    private readonly total: number,
    private readonly item: (i: number) => HTMLElement,
    private readonly noun = "records",
  ) {
    this.nav.id = `${list.id}-pager`;
    this.label.setAttribute("aria-live", "polite");
    for (const [b, step] of [
      [this.prev, -1],
      [this.next, 1],
    ] as const) {
      b.type = "button";
      b.addEventListener("click", () => this.show(this.page + step));
    }
    this.prev.dataset.action = "previous-page";
    this.next.dataset.action = "next-page";
    this.nav.append(this.prev, this.label, this.next);
    this.show(0);
  }

  get pages(): number {
    return Math.max(1, Math.ceil(this.total / PAGE_SIZE));
  }

  /** The page the i-th entry is on. */
  pageOf(i: number): number {
    return Math.floor(i / PAGE_SIZE);
  }

  /** Draws page `n` (clamped to the pages there are). */
  show(n: number): void {
    this.page = Math.min(Math.max(0, n), this.pages - 1);
    const from = this.page * PAGE_SIZE;
    const to = Math.min(this.total, from + PAGE_SIZE);
    const items: HTMLElement[] = [];
    for (let i = from; i < to; i++) items.push(this.item(i));
    this.list.replaceChildren(...items);
    this.list.start = from + 1;
    this.nav.hidden = this.total <= PAGE_SIZE;
    this.nav.dataset.page = String(this.page + 1);
    this.label.textContent = `${this.noun} ${count(from + 1)}–${count(to)} of ${count(this.total)} (page ${this.page + 1} of ${this.pages})`;
    this.prev.disabled = this.page === 0;
    this.next.disabled = this.page >= this.pages - 1;
  }

  /** Draws the i-th entry again when it is on show (its verdict came in). */
  redraw(i: number): void {
    const from = this.page * PAGE_SIZE;
    if (i < from || i >= from + PAGE_SIZE) return;
    const old = this.list.children[i - from];
    if (old) old.replaceWith(this.item(i));
  }
}
