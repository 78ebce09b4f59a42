import type { PublicApi } from "../lookup/public-api.js";
import { LookupError } from "../lookup/public-api.js";
import { uuidOfVconFile, vconUuidOf } from "../lookup/vcon.js";
import type { Session } from "./console-data.js";
import { recordsByPayload, vconPayloadHashes } from "./console-find.js";
import { type ConsoleLink, consoleFragment } from "./console-link.js";
import type { TrailScreen } from "./console-trail-view.js";
import { byId } from "./render.js";
import type { VerdictLook } from "./verdict-look.js";

/** What finding a trail by a vCon file asks of the console. */
export interface VconFilePage {
  session(): Session | undefined;
  api(s: Session): PublicApi;
  /** Clears the trail on show and the address naming it: what the file finds is shown next, or nothing. */
  showNothing(): void;
  guarded(what: string, step: () => Promise<void>): Promise<void>;
  open(link: ConsoleLink): Promise<void>;
  screen(): TrailScreen | undefined;
  go(link: ConsoleLink): void;
  say(ok: boolean | undefined, text: string, verdict?: VerdictLook): void;
}

/**
 * A vCon file dropped or chosen: its payload hashes (every mode the links hash in) find the
 * records that recorded this very version; its trail opens with them marked.
 */
async function findVconFile(page: VconFilePage, file: File | undefined): Promise<void> {
  const s = page.session();
  if (!file || !s) return;
  page.showNothing();
  await page.guarded(`Hashing ${file.name} and finding its records`, async () => {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const hashes = vconPayloadHashes(bytes);
    const found = await recordsByPayload(page.api(s), hashes);
    const tried = hashes.flatMap((h) => h.modes).join(", ");
    if (!found.length)
      throw new LookupError(
        `no record you may read holds this file's payload hash (SHA-256 as ${tried}): not recorded, recorded as another version, or not yours to read`,
      );
    let uuid: string | undefined;
    try {
      uuid = uuidOfVconFile(bytes).uuid;
    } catch {
      uuid = vconUuidOf(found.find((f) => f.subject.startsWith("vcon://"))?.subject ?? "");
    }
    if (!uuid) {
      const only = found[0] as (typeof found)[number];
      page.go({ kind: "record", identity: only.identity });
      return;
    }
    await page.open({ kind: "vcon", uuid });
    const view = page.screen();
    if (page.session() !== s || !view) return;
    history.replaceState(null, "", consoleFragment({ kind: "vcon", uuid }));
    const inTrail = new Set(view.mark(found.map((f) => f.identity)));
    const marked = found.filter((f) => inTrail.has(f.identity));
    const modes = [...new Set(marked.flatMap((f) => f.modes))].join(", ");
    page.say(
      marked.length > 0,
      marked.length
        ? `${file.name} is the version of vcon://${uuid} recorded by ${marked.length} record(s) (payload hash as ${modes}), marked in its trail`
        : `${file.name} matches ${found.length} record(s), none of them in the trail of vcon://${uuid}`,
    );
  });
}

/** The vCon file field and drop zone: a file given either way finds its trail. */
export function wireVconFile(page: VconFilePage): void {
  const vconInput = byId<HTMLInputElement>("vcon-file");
  vconInput.addEventListener("change", () => void findVconFile(page, vconInput.files?.[0]));
  const vconDrop = byId<HTMLElement>("vcon-drop");
  vconDrop.addEventListener("dragover", (e) => {
    e.preventDefault();
    vconDrop.classList.add("over");
  });
  vconDrop.addEventListener("dragleave", () => vconDrop.classList.remove("over"));
  vconDrop.addEventListener("drop", (e) => {
    e.preventDefault();
    vconDrop.classList.remove("over");
    void findVconFile(page, e.dataTransfer?.files[0]);
  });
}
