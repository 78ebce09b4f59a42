import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../../src/verify/tlog/log-check.js";
import { testEngine } from "../../helpers/databases.js";
import { publishedKey } from "../../helpers/log-key.js";
import { until } from "../../helpers/poll.js";
import { freePort } from "../../helpers/ports.js";
import { evidence, postEvent, tenancyLog } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";
import { prepareWitness, runWitness, stopWitness } from "../../helpers/witness-process.js";

// Issue 72: the index's roots are committed where witnesses see them. Its output log goes to the
// log's witnesses under its own origin and key name; a witness given its vkey cosigns it, and
// checks each new output checkpoint is consistent with the last it cosigned.
let s: TestService;
let token: string;
let prefix: string;
let asset: string;
const w = prepareWitness("index-witness.test/one", await freePort());

beforeAll(async () => {
  s = await startTestService({
    ARCHIVIST_WITNESSES: `${w.vkey} ${w.url}`,
    ARCHIVIST_SEAL_INTERVAL_MS: "100",
  });
  token = await s.token(s.a);
  const log = await tenancyLog(s, token, "iw");
  asset = log.asset.identity;
  prefix = `${s.url}${log.prefix.replace(/\/tlog$/, "")}`;
  await s.service.workers.flush();
}, 90_000);
afterAll(async () => {
  await stopWitness(w);
  await s?.stop();
});

describe(`the index's output log, witnessed (${testEngine()})`, () => {
  it("is cosigned by a witness given its vkey, and again as it grows", async () => {
    const logVkey = await publishedKey(() => fetch(`${prefix}/tlog/key`));
    const indexVkey = (await (await fetch(`${prefix}/vindex/key`)).text()).trim();
    expect(indexVkey.split("+")[0]).toMatch(/\/vindex$/);
    await runWitness(w, logVkey, indexVkey);
    const cosigned = async () => {
      const note = await (await fetch(`${prefix}/vindex/checkpoint`)).text();
      const v = verifyCheckpoint(note, { logVkey: indexVkey, witnessVkeys: [w.vkey], quorum: 1 });
      return v.ok ? Number(note.split("\n")[1]) : undefined;
    };
    const first = await until(cosigned, 60_000);
    await postEvent(s, token, asset, evidence({ arc_display_type: "iw" }));
    const later = await until(async () => {
      const n = await cosigned();
      return n !== undefined && n > first ? n : undefined;
    }, 60_000);
    expect(later).toBeGreaterThan(first);
  });
});
