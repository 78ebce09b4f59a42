import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseVcon, vconUuid } from "../../../plugins/conserver/vcon.js";
import { fixtureJson, fixturePath } from "../../helpers/fixtures.js";
import { conserverOnFake, redisUp, uniqueName, until } from "./redis-env.js";

const up = await redisUp();
type Vectors = { vectors: Record<string, { sha256_vcon_server_after_read_normalization: string }> };
const vectors = fixtureJson<Vectors>("vcon/hash-vectors.json").vectors;
const bytes = (name: string) => readFileSync(fixturePath(`vcon/${name}`));
const uuidOf = (name: string) => vconUuid(parseVcon(new Uint8Array(bytes(name)))) as string;
// Three fixtures are forms of one vCon (same uuid): they go through as three successive versions.
const SAME_VCON = [
  "ietf-core03-ab_call_ext_rec.vcon.json",
  "ietf-core03-ab_call_ext_rec_signed.vcon.json",
  "ietf-core03-ab_call_ext_rec_encrypted.vcon.json",
];
const OTHERS = Object.keys(vectors).filter((n) => !SAME_VCON.includes(n));

describe.skipIf(!up)("conserver run: Redis lists → links → delivery queue → archivist API", () => {
  const prefix = uniqueName("run");
  const ingress = `${prefix}-in`;
  const egress = `${prefix}-out`;
  const suite = conserverOnFake(prefix, ingress, (backendUrl) => {
    process.env.CONSERVER_TEST_SECRET = "secret-1";
    return `
links:
  arch_created:
    module: archivist
    options:
      vcon_operation: created
      asset_free: true
      backend: {url: "${backendUrl}", client_id: client-1, client_secret: "\${CONSERVER_TEST_SECRET}"}
chains:
  main: {links: [arch_created], ingress_lists: [${ingress}], egress_lists: [${egress}], enabled: 1}
storages: {}
delivery: {queue: ${prefix}-delivery, prefix: ${prefix}, attempts: 3, backoff_ms: 20}
`;
  });

  async function push(name: string): Promise<string> {
    const uuid = uuidOf(name);
    await suite.redis.set(`${prefix}:vcon:${uuid}`, bytes(name));
    await suite.redis.rpush(ingress, uuid);
    return uuid;
  }

  it("records every fixture once, with the Python link's payload, and passes the uuids on", async () => {
    const uuids = [];
    for (const name of OTHERS) uuids.push(await push(name));
    for (const name of SAME_VCON) {
      await push(name);
      // Wait for this version before storing the next form under the same key.
      await until(
        () =>
          suite.backend.fake.events.some(
            (e) => e.event_attributes.payload === vectors[name]?.sha256_vcon_server_after_read_normalization,
          ),
        8000,
        name,
      );
    }
    const all = Object.keys(vectors);
    await until(
      () =>
        suite.backend.fake.events.length === all.length &&
        suite.backend.fake.freeEvents.length === all.length,
      8000,
      "all events",
    );
    for (const name of all) {
      const want = vectors[name]?.sha256_vcon_server_after_read_normalization;
      const events = suite.backend.fake.events.filter((e) => e.event_attributes.payload === want);
      expect(events, name).toHaveLength(1);
      expect(events[0]?.event_attributes).toMatchObject({
        subject: `vcon://${uuidOf(name)}`,
        vcon_operation: "vcon_created",
      });
    }
    // One asset per vCon: the three forms of ext_rec share one.
    expect(suite.backend.fake.assets).toHaveLength(OTHERS.length + 1);
    expect(await suite.redis.lrange(egress, 0, -1)).toEqual([...uuids, ...SAME_VCON.map(uuidOf)]);
    expect(await suite.redis.llen(ingress)).toBe(0);
  });

  it("hands the vCon's trace context on to the egress list", async () => {
    const name = "vcon-js-interop-inline-recording.vcon.json";
    const uuid = uuidOf(name);
    await suite.redis.rpush(`context:${ingress}:${uuid}`, '{"traceparent":"00-abc-def-01"}');
    await suite.redis.del(egress);
    await push(name);
    await until(async () => (await suite.redis.llen(egress)) === 1, 8000, "egress");
    expect(await suite.redis.lrange(`context:${egress}:${uuid}`, 0, -1)).toEqual([
      '{"traceparent":"00-abc-def-01"}',
    ]);
    expect(await suite.redis.exists(`context:${ingress}:${uuid}`)).toBe(0);
    await suite.redis.del(`context:${egress}:${uuid}`);
  });

  it("dead-letters a vCon the chain cannot read to DLQ:<ingress list>", async () => {
    await suite.redis.set(`${prefix}:vcon:broken`, "{not json");
    await suite.redis.rpush(ingress, "missing-uuid", "broken");
    await until(async () => (await suite.redis.llen(`DLQ:${ingress}`)) === 2, 8000, "DLQ entries");
    expect(await suite.redis.lrange(`DLQ:${ingress}`, 0, -1)).toEqual(["missing-uuid", "broken"]);
    expect(await suite.redis.ttl(`${prefix}:vcon:broken`)).toBeGreaterThan(600_000);
    expect(await suite.running.deadLetters.size()).toBe(0);
  });
});
