import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cose, entryOf, statementOf, trustVectorKey } from "../../helpers/scitt-requests.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * Issue 55: without a token, the entry routes answered 401 for an entry of a closed log and 404
 * for an id nobody registered, telling an anonymous caller which entry ids a closed log holds.
 * They now answer both alike; the entries of open and public logs still answer without a token,
 * and an id they do not hold is still SCRAPI -11's 404.
 */

/** A service whose tenancy A keeps a closed log and B an open one (the public log, when `publicB`). */
async function serviceWithLogs(publicB: boolean) {
  const b = randomUUID();
  const s = await startTestService(
    { ARCHIVIST_SCRAPI_WAIT_MS: "0", ...(publicB ? { ARCHIVIST_SCITT_PUBLIC_LOG: b } : {}) },
    {},
    {},
    { b },
  );
  const tokenA = await s.token(s.a);
  const tokenB = await s.token(s.b);
  for (const token of [tokenA, tokenB]) {
    await trustVectorKey(s, token);
  }
  const open = await s.api("/archivist/v1/scitt/registration-policy", {
    method: "PUT",
    token: tokenB,
    json: { open: true, requests_per_second: 1000 },
  });
  expect(open.status).toBe(200);
  const tenantA = (
    (await (await s.api("/archivist/v1/scitt/keys", { token: tokenA })).json()) as { issuer: string }
  ).issuer.split("/tenant/")[1] as string;
  // A's entry, registered with A's token; B's, by signature alone.
  const inA = await s.api(`/tenants/${tenantA}/entries`, cose(statementOf(1), tokenA));
  expect([201, 202]).toContain(inA.status);
  const inB = await s.api(`/tenants/${b}/entries`, cose(statementOf(2)));
  expect([201, 202]).toContain(inB.status);
  return { s, tenantA, tenantB: b, entryA: entryOf(inA), entryB: entryOf(inB) };
}

/** The routes that answer for one entry id, at the service's root (or DataTrails' form) and under a log. */
const rootRoutes = (id: string) => [
  `/operations/${id}`,
  `/entries/${id}`,
  `/entries/${id}/statement`,
  `/archivist/v1/publicscitt/operations/${id}`,
  `/archivist/v1/publicscitt/entries/${id}`,
  `/archivist/v1/publicscitt/entries/${id}/receipt`,
];
const logRoutes = (log: string, id: string) => [
  `/tenants/${log}/operations/${id}`,
  `/tenants/${log}/entries/${id}`,
  `/tenants/${log}/entries/${id}/statement`,
];

async function statusOf(s: TestService, path: string): Promise<number> {
  const res = await s.api(path, { redirect: "manual" });
  await res.arrayBuffer();
  return res.status;
}

describe.each([
  ["without a public log", false, 401],
  ["with B's log as the public log", true, 404],
])("entry routes, anonymous, on a service %s", (_name, publicB, rootStatus) => {
  let logs: Awaited<ReturnType<typeof serviceWithLogs>>;
  beforeAll(async () => {
    logs = await serviceWithLogs(publicB);
  }, 120_000);
  afterAll(() => logs?.s.stop());

  it("answer an entry of a closed log as they answer an id nobody registered", async () => {
    const unknown = `events_${randomUUID()}`;
    const { s, tenantA, entryA } = logs;
    for (const [closed, none] of [
      ...rootRoutes(entryA).map((p, i) => [p, rootRoutes(unknown)[i]] as const),
      ...logRoutes(tenantA, entryA).map((p, i) => [p, logRoutes(tenantA, unknown)[i]] as const),
    ]) {
      const [a, b] = [await statusOf(s, closed), await statusOf(s, none as string)];
      expect([closed, a]).toEqual([closed, b]);
      expect([closed, a]).toEqual([closed, closed.startsWith("/tenants/") ? 401 : rootStatus]);
    }
  });

  // Issue 71: an id that was not of an entry's form (a bare uuid, another spelling of a real
  // entry's) was 404 under a closed log, where every well-formed one is 401.
  it("answer another tenancy's entry under a closed log, and an id of any form, as an id nobody registered", async () => {
    const { s, tenantA, entryB } = logs;
    const unknown = [
      `events_${randomUUID()}`,
      entryB.toUpperCase(),
      entryB.replace("events_", ""),
      randomUUID(),
      "nonsense",
    ];
    for (const id of [entryB, ...unknown])
      for (const path of logRoutes(tenantA, id)) expect([path, await statusOf(s, path)]).toEqual([path, 401]);
    for (const id of unknown)
      for (const path of rootRoutes(id)) expect([path, await statusOf(s, path)]).toEqual([path, rootStatus]);
  });

  it("still answer the entries of an open log without a token, and 404 for an id it does not hold", async () => {
    const { s, tenantB, entryB, entryA } = logs;
    const [operation, receipt, statement] = logRoutes(tenantB, entryB);
    expect([200, 202]).toContain(await statusOf(s, operation as string));
    expect([200, 204]).toContain(await statusOf(s, receipt as string));
    expect(await statusOf(s, statement as string)).toBe(200);
    expect([200, 204]).toContain(await statusOf(s, `/entries/${entryB}`));
    for (const id of [`events_${randomUUID()}`, entryA])
      for (const path of logRoutes(tenantB, id)) expect([path, await statusOf(s, path)]).toEqual([path, 404]);
  });

  it("answer a tenancy's admin its closed log's entries with its token", async () => {
    const { s, tenantA, entryA } = logs;
    const token = await s.token(s.a);
    const res = await s.api(`/tenants/${tenantA}/entries/${entryA}/statement`, { token });
    expect(res.status).toBe(200);
  });
});
