import type { PublicApi } from "../lookup/public-api.js";
import type { TrustRoots } from "../verify/index.js";
import { exportBundle } from "./console-data.js";
import type { Trail } from "./console-trail.js";
import { el } from "./render.js";
import { markVerdict, type VerdictLook } from "./verdict-look.js";

/** What the export bar asks of the console: its look-up client, the roots applied, how to say things. */
export interface ExportPage {
  api(): PublicApi;
  trust(): TrustRoots;
  guarded(what: string, step: () => Promise<void>): Promise<void>;
  say(ok: boolean | undefined, text: string, verdict?: VerdictLook): void;
}

/** The trail's export: one evidence bundle file, checked here under the roots applied before it is saved. */
export function exportBar(t: Trail, page: ExportPage): HTMLElement[] {
  const target = t.target;
  if (target.kind === "record") return [];
  const exportButton = el("button", "Export evidence bundle") as HTMLButtonElement;
  exportButton.type = "button";
  exportButton.id = "export";
  const exportStatus = el("p", undefined, "note");
  exportStatus.id = "export-status";
  exportStatus.setAttribute("aria-live", "polite");
  exportButton.addEventListener("click", () =>
    page.guarded("Exporting the evidence bundle", async () => {
      const b = await exportBundle(page.api(), target, page.trust());
      const url = URL.createObjectURL(new Blob([b.text], { type: "application/json" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = b.name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      exportStatus.textContent = `Saved ${b.name}. Checked here before saving: ${b.report.summary}`;
      const verdict = { code: b.report.code, level: b.report.trust.level };
      markVerdict(exportStatus, verdict);
      // Self-consistent is what a bundle checked without roots can be: saved, not a failure.
      page.say(
        b.report.code === "verified" || b.report.code === "self-consistent-unpinned",
        `Exported ${b.name}: ${b.report.summary}`,
        verdict,
      );
    }),
  );
  const toolbar = el("div", undefined, "toolbar");
  toolbar.append(
    exportButton,
    el("span", "One file anyone can check offline on /verify or with archivist verify bundle.", "note"),
  );
  return [toolbar, exportStatus];
}
