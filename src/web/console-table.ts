import type { AssetOrder, AssetPage, AssetSummary } from "./console-data.js";
import { type ConsoleLink, consoleFragment } from "./console-link.js";
import { el, timeView } from "./render.js";

const PAGE_SIZE = 10;
const COLUMNS = ["Name or subject", "Type", "Status", "Last event", "Asset events"] as const;
/** What a column counts, where its heading alone could mislead (a vCon's trail counts otherwise). */
const COLUMN_NOTES: Partial<Record<(typeof COLUMNS)[number], string>> = {
  "Asset events":
    "The events on the asset you may read, its creation (NewAsset) included. A vCon's trail shows the ones naming the vCon, and its asset-free events and registered statements besides.",
};
/** The columns a click on their heading sorts by. */
const SORTS: Partial<Record<(typeof COLUMNS)[number], AssetOrder>> = {
  "Name or subject": "NAME",
  "Last event": "LAST_EVENT",
};

const text = (v: unknown) => (typeof v === "string" ? v : "");

/** Where a row leads: a vCon asset to its vCon's whole trail, any other asset to its own. */
function assetTarget(a: AssetSummary): ConsoleLink {
  const attrs = (a.attributes ?? {}) as Record<string, unknown>;
  const uuid = String(a.identity).replace(/^assets\//, "");
  const vcon = /^vcon:\/\/([0-9a-f-]{36})$/i.exec(text(attrs.subject))?.[1];
  return vcon ? { kind: "vcon", uuid: vcon.toLowerCase() } : { kind: "asset", uuid };
}

function nameCell(a: AssetSummary): HTMLElement {
  const attrs = (a.attributes ?? {}) as Record<string, unknown>;
  const name = text(attrs.arc_display_name);
  const subject = text(attrs.subject);
  const td = el("td", undefined, "name");
  const link = el("a", name || subject || String(a.identity)) as HTMLAnchorElement;
  link.href = consoleFragment(assetTarget(a));
  td.append(link);
  const under = [subject && subject !== name ? subject : "", String(a.identity)].filter(Boolean).join(" · ");
  td.append(el("span", under, "note hash sub"));
  return td;
}

function row(a: AssetSummary): HTMLElement {
  const attrs = (a.attributes ?? {}) as Record<string, unknown>;
  const tr = el("tr");
  tr.dataset.identity = String(a.identity);
  const status = el("td");
  const level = text(a.confirmation_status);
  status.append(el("span", level || "UNKNOWN", `badge ${level}`));
  const last = el("td");
  last.append(a.last_event_at ? timeView(a.last_event_at) : el("span", "none", "note"));
  const cells = [
    nameCell(a),
    el("td", text(attrs.arc_display_type) || "(no type)"),
    status,
    last,
    el("td", String(a.event_count), "count"),
  ];
  for (const [i, td] of cells.entries()) td.dataset.label = COLUMNS[i] ?? "";
  tr.append(...cells);
  return tr;
}

/**
 * The auditor's table of assets and vCons: filtered by a text in their name, subject or type,
 * sorted by newest event, name or creation, paged with the service's page tokens (the tokens
 * of earlier pages are kept here for "Previous").
 */
export class AssetTable {
  private tokens: string[] = [];
  private next = "";

  constructor(
    private readonly ui: {
      form: HTMLFormElement;
      filter: HTMLInputElement;
      order: HTMLSelectElement;
      out: HTMLElement;
      prev: HTMLButtonElement;
      nextButton: HTMLButtonElement;
      pageLabel: HTMLElement;
    },
    private readonly load: (q: {
      order: AssetOrder;
      text: string;
      pageSize: number;
      token?: string | undefined;
    }) => Promise<AssetPage>,
    private readonly failed: (err: unknown) => void,
  ) {
    ui.form.addEventListener("submit", (e) => {
      e.preventDefault();
      void this.first();
    });
    ui.order.addEventListener("change", () => void this.first());
    ui.nextButton.addEventListener("click", () => {
      if (!this.next) return;
      this.tokens.push(this.next);
      void this.show(this.next);
    });
    ui.prev.addEventListener("click", () => {
      this.tokens.pop();
      void this.show(this.tokens.at(-1));
    });
  }

  private get order(): AssetOrder {
    return this.ui.order.value as AssetOrder;
  }

  /** The first page of the current filter and order. */
  first(): Promise<void> {
    this.tokens = [];
    return this.show(undefined);
  }

  private async show(token: string | undefined): Promise<void> {
    let page: AssetPage;
    try {
      page = await this.load({ order: this.order, text: this.ui.filter.value, pageSize: PAGE_SIZE, token });
    } catch (err) {
      this.failed(err);
      return;
    }
    this.next = page.next;
    this.ui.out.replaceChildren(this.table(page.assets));
    const n = this.tokens.length;
    const from = n * PAGE_SIZE + 1;
    const to = n * PAGE_SIZE + page.assets.length;
    this.ui.pageLabel.textContent = page.assets.length
      ? `${from}–${to}${page.total !== undefined ? ` of ${page.total}` : ""}`
      : "";
    this.ui.prev.disabled = n === 0;
    this.ui.nextButton.disabled = !page.next;
  }

  private table(assets: AssetSummary[]): HTMLElement {
    if (!assets.length)
      return el(
        "p",
        this.ui.filter.value.trim() ? "No asset you may read matches." : "No assets you may read yet.",
        "note",
      );
    const table = el("table", undefined, "plain assets-table");
    table.id = "assets-table";
    const head = el("tr");
    for (const name of COLUMNS) {
      const th = el("th");
      th.setAttribute("scope", "col");
      const sort = SORTS[name];
      if (sort) {
        const b = el("button", name, "link sort") as HTMLButtonElement;
        b.type = "button";
        b.addEventListener("click", () => {
          this.ui.order.value = sort;
          void this.first();
        });
        th.append(b);
        th.setAttribute(
          "aria-sort",
          this.order === sort ? (sort === "NAME" ? "ascending" : "descending") : "none",
        );
      } else th.textContent = name;
      const note = COLUMN_NOTES[name];
      if (note) th.title = note;
      head.append(th);
    }
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    for (const a of assets) body.append(row(a));
    table.append(thead, body);
    return table;
  }
}
