import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyRouteSpec } from "../../src/http/route.js";
import { appIdpIssuer, tokenAudience } from "../../src/services/identity/tokens.js";
import { ensurePagesBuilt } from "../helpers/browser.js";
import {
  compressed,
  coseBody,
  jsonBody,
  junkJwt,
  jwtClaims,
  multipart,
  odataFilter,
  pageToken,
  pathOf,
  pct,
  query,
  segment,
} from "./generators.js";
import {
  allSpecs,
  attempt,
  FUZZ,
  type Fuzzed,
  noPartialFiles,
  startFuzzed,
  stillAlive,
  writeTally,
} from "./harness.js";

// Property-based hostile input against the real service on the project's engine. Invariants
// (checked by `attempt`): an answer before the deadline, never a 5xx, the API's error body,
// nothing stored by a refused request or a GET; after each property the process still answers
// and no partial upload is left. FUZZ_RUNS and FUZZ_SEED set the size and the seed.
let f: Fuzzed;
let specs: AnyRouteSpec[];
beforeAll(async () => {
  // The pages are routes too: unbuilt, they answer 503 ("not built"), which is not what is fuzzed.
  ensurePagesBuilt();
  f = await startFuzzed();
  specs = allSpecs();
  // The properties below pick among these: with none they would pass having sent nothing.
  expect(specs.length).toBeGreaterThan(100);
}, 120_000);
afterAll(async () => {
  writeTally("hostile");
  await f?.s.stop();
});

const params = (n: number) => ({ numRuns: n, seed: FUZZ.seed, endOnFailure: true });
const TIMEOUT = 600_000;
const who = fc.constantFrom<"admin" | "plain" | "none" | "junk">("admin", "admin", "plain", "none", "junk");
const auth = (w: "admin" | "plain" | "none" | "junk"): Record<string, string> =>
  w === "none"
    ? {}
    : { authorization: `Bearer ${w === "admin" ? f.admin : w === "plain" ? f.plain : "x.y.z"}` };

async function settled(): Promise<void> {
  await stillAlive(f);
  expect(await noPartialFiles(f)).toEqual([]);
}

describe("fuzzing the API", () => {
  it(
    "paths: every operation with hostile path parameters and callers",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.array(segment, { minLength: 1, maxLength: 3 }),
          query,
          who,
          async (i, segs, q, w) => {
            const spec = specs[i % specs.length];
            if (!spec) return;
            const method = spec.method.toUpperCase();
            const withBody = method !== "GET" && method !== "DELETE";
            await attempt(f, {
              method,
              path: `${pathOf(spec, segs)}${q}`,
              headers: { ...auth(w), ...(withBody ? { "content-type": "application/json" } : {}) },
              ...(withBody ? { body: "{}" } : {}),
            });
          },
        ),
        params(FUZZ.runs * 3),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "query strings: every list and read with hostile filters, sizes and numbers",
    async () => {
      const gets = specs.filter((s) => s.method === "get");
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.array(segment, { minLength: 1, maxLength: 3 }),
          query,
          who,
          async (i, segs, q, w) => {
            const spec = gets[i % gets.length];
            if (!spec) return;
            await attempt(f, { method: "GET", path: `${pathOf(spec, segs)}${q}`, headers: auth(w) });
          },
        ),
        params(FUZZ.runs * 2),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "JSON bodies: every write with hostile values",
    async () => {
      const writes = specs.filter((s) => s.method !== "get" && s.method !== "delete");
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.uuid(),
          jsonBody,
          fc.constantFrom("admin", "admin", "plain") as fc.Arbitrary<"admin" | "plain">,
          async (i, id, body, w) => {
            const spec = writes[i % writes.length];
            if (!spec) return;
            await attempt(f, {
              method: spec.method.toUpperCase(),
              path: pathOf(spec, [id]),
              headers: { ...auth(w), "content-type": "application/json" },
              body: JSON.stringify(body) ?? "null",
            });
          },
        ),
        params(FUZZ.runs * 3),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "OData filters: the asset-free event search",
    async () => {
      await fc.assert(
        fc.asyncProperty(odataFilter, fc.option(fc.integer(), { nil: undefined }), async (filter, top) => {
          await attempt(f, {
            method: "POST",
            path: "/archivist/v1/events/search",
            headers: { ...auth("admin"), "content-type": "application/json" },
            body: JSON.stringify({ filter: filter.slice(0, 4096), ...(top === undefined ? {} : { top }) }),
          });
        }),
        params(FUZZ.runs),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "CBOR and COSE: statement registration in both forms",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          coseBody,
          fc.constantFrom("/entries", "/archivist/v1/publicscitt/entries"),
          fc.constantFrom("application/cose", "application/cbor", "application/cose; cose-type=cose-sign1"),
          async (body, path, type) => {
            await attempt(f, {
              method: "POST",
              path,
              headers: { ...auth("admin"), "content-type": type },
              body,
            });
          },
        ),
        params(FUZZ.runs),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "multipart: blob uploads truncated, with corrupted boundaries and part headers",
    async () => {
      await fc.assert(
        fc.asyncProperty(multipart, async ({ contentType, body }) => {
          await attempt(f, {
            method: "POST",
            path: "/archivist/v1/blobs",
            headers: { ...auth("admin"), "content-type": contentType },
            body,
          });
        }),
        params(FUZZ.runs),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "compressed bodies: every encoding, damaged bytes, unknown encodings and bombs",
    async () => {
      const targets = [
        ["/archivist/v2/assets", "application/json"],
        ["/archivist/v1/events", "application/json"],
        ["/archivist/v1/blobs", "multipart/form-data; boundary=B"],
        ["/archivist/iam/v1/appidp/token", "application/x-www-form-urlencoded"],
        ["/entries", "application/cose"],
      ] as const;
      await fc.assert(
        fc.asyncProperty(compressed, fc.nat(), async ({ encoding, body }, i) => {
          const [path, type] = targets[i % targets.length] ?? targets[0];
          await attempt(f, {
            method: "POST",
            path,
            headers: { ...auth("admin"), "content-type": type, "content-encoding": encoding },
            body,
          });
        }),
        params(FUZZ.runs),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "page tokens: signed with wrongly typed fields, tampered, or junk",
    async () => {
      const lists = [
        "/archivist/v2/assets",
        "/archivist/v2/assets/-/events",
        "/archivist/v2/locations",
        "/archivist/iam/v1/applications",
      ];
      await fc.assert(
        fc.asyncProperty(pageToken(f.hmacKey, f.tenantA), fc.nat(), async (token, i) => {
          await attempt(f, {
            method: "GET",
            path: `${lists[i % lists.length]}?page_token=${pct(token)}`,
            headers: auth("admin"),
          });
        }),
        params(FUZZ.runs),
      );
      await settled();
    },
    TIMEOUT,
  );

  it(
    "JWTs: our signature over wrongly typed claims, and malformed tokens",
    async () => {
      const key = await f.s.service.ctx.keys.get("token", "RS256");
      const base = f.s.service.ctx.config.baseUrl;
      await fc.assert(
        fc.asyncProperty(jwtClaims, fc.boolean(), async (claims, ours) => {
          const token = await new SignJWT({
            ...(ours ? { iss: appIdpIssuer(base), aud: tokenAudience(base) } : {}),
            ...claims,
          })
            .setProtectedHeader({ alg: "RS256", kid: key.kid })
            .sign(key.privateKey)
            .catch(() => "x.y.z");
          const status = await attempt(f, {
            method: "GET",
            path: "/archivist/v2/assets",
            headers: { authorization: `Bearer ${token}` },
          });
          expect([200, 401, 429]).toContain(status);
        }),
        params(FUZZ.runs),
      );
      await fc.assert(
        fc.asyncProperty(junkJwt, async (token) => {
          const status = await attempt(f, {
            method: "GET",
            path: "/archivist/v2/assets",
            headers: { authorization: `Bearer ${token.replace(/[\r\n\0]/g, "")}` },
          });
          expect([400, 401]).toContain(status);
        }),
        params(FUZZ.runs),
      );
      await settled();
    },
    TIMEOUT,
  );
});
