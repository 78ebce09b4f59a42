import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../helpers/databases.js";
import { freePort } from "../../helpers/ports.js";
import { createAsset, evidence, postEvent } from "../../helpers/records.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * The logs' heads in an etcd that does not answer: the service still starts and stores every write
 * (nothing is lost, it is signed once etcd is back), signs nothing meanwhile, and says so: /readyz
 * is 503 within its bound, /healthz 200.
 */
let s: TestService;
let token: string;

beforeAll(async () => {
  const dead = await freePort();
  s = await startTestService({ ARCHIVIST_ETCD_ENDPOINTS: `http://127.0.0.1:${dead}` });
  token = await s.token(s.a);
}, 60_000);
afterAll(() => s?.stop());

describe(`the logs' heads out of reach (${testEngine()})`, () => {
  it("starts, stores writes, signs nothing, and is not ready", async () => {
    const asset = await createAsset(s, token, { arc_display_type: "no etcd" });
    expect((await postEvent(s, token, asset.identity, evidence({ n: "1" }))).status).toBe(200);
    const started = Date.now();
    const ready = await s.api("/readyz");
    expect(Date.now() - started).toBeLessThan(3000);
    expect(ready.status).toBe(503);
    expect((await s.api("/healthz")).status).toBe(200);
    await s.service.workers.flush();
    const seals = await s.service.ctx.db.query<{ n: string }>("select count(*)::text as n from seals");
    expect(seals[0]?.n).toBe("0");
    const events = (await (await s.api(`/archivist/v2/${asset.identity}/events`, { token })).json()) as {
      events: unknown[];
    };
    // The asset's creation and the event.
    expect(events.events).toHaveLength(2);
  }, 60_000);
});
