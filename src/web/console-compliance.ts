import { consoleFragment } from "./console-link.js";
import type { Trail } from "./console-trail.js";
import { el, headedCard } from "./render.js";

/** A trail's compliance: per asset, each policy that applies, met or not and why. */
export function complianceView(t: Trail): HTMLElement {
  const box = headedCard("compliance", "Compliance");
  for (const c of t.compliance) {
    if (t.compliance.length > 1) box.append(el("p", c.asset, "note hash"));
    if (!c.policies.length) {
      box.append(el("p", "No compliance policy applies to this asset.", "note"));
      continue;
    }
    const tbl = el("table", undefined, "plain");
    const head = el("tr");
    for (const th of ["Policy", "Status", "Why"]) head.append(el("th", th));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    for (const p of c.policies) {
      const tr = el("tr");
      tr.dataset.compliant = String(p.compliant);
      const st = el("td");
      st.append(
        el("span", p.compliant ? "COMPLIANT" : "NOT COMPLIANT", `badge ${p.compliant ? "ok" : "fail"}`),
      );
      tr.append(el("td", p.name), st, el("td", p.reason));
      body.append(tr);
    }
    tbl.append(thead, body);
    box.append(tbl);
  }
  return box;
}

/**
 * How the trail's count meets the asset table's: the table counts an asset's events (its
 * creation, NewAsset, included); a vCon's trail shows those naming the vCon, and its asset-free
 * events and registered statements besides.
 */
export function assetCountsNote(t: Trail): HTMLElement {
  const p = el("p", undefined, "note");
  p.id = "trail-counts";
  for (const [i, c] of t.assetCounts.entries()) {
    const rest = c.total - c.inTrail;
    const link = el("a", c.name) as HTMLAnchorElement;
    link.href = consoleFragment({ kind: "asset", uuid: c.identity.replace(/^assets\//, "") });
    p.append(
      i ? " " : "",
      `The table counts ${c.total} asset event${c.total === 1 ? "" : "s"} on `,
      link,
      rest > 0
        ? `, its creation included: ${c.inTrail} name${c.inTrail === 1 ? "s" : ""} this vCon and ${c.inTrail === 1 ? "is" : "are"} in this trail; the other ${rest} ${rest === 1 ? "is" : "are"} on the asset's own trail.`
        : ": all of them are in this trail.",
    );
  }
  return p;
}
