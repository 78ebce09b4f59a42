import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signSign1 } from "../../src/core/log/sign1.js";
import { nodeSigner } from "../../src/core/node/crypto.js";
import { eventToStatement } from "../../src/core/scitt/index.js";
import type { CborValue } from "../../src/formats/cbor/index.js";
import { decodeSign1, HEADER } from "../../src/formats/cose/index.js";
import type { AnyRouteSpec } from "../../src/http/route.js";
import { appIdpIssuer, tokenAudience } from "../../src/services/identity/tokens.js";
import { ensurePagesBuilt } from "../helpers/browser.js";
import { allSpecs } from "../helpers/route-specs.js";
import { servicePrivateKey } from "../helpers/service-keys.js";
import { VCON_CREATED_EVENT } from "../helpers/vcon-event.js";
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
  rangeHeader,
  segment,
  x5chainValue,
} from "./generators.js";
import {
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
type Who = "admin" | "plain" | "none" | "junk";
const who = fc.constantFrom<Who>("admin", "admin", "plain", "none", "junk");
const auth = (w: Who): Record<string, string> =>
  w === "none"
    ? {}
    : { authorization: `Bearer ${w === "admin" ? f.admin : w === "plain" ? f.plain : "x.y.z"}` };

/** Asserts each property with the suite's seed, then that the process still answers and left no partial upload. */
function fuzz(name: string, properties: () => Promise<void>): void {
  it(
    name,
    async () => {
      await properties();
      await stillAlive(f);
      expect(await noPartialFiles(f)).toEqual([]);
    },
    TIMEOUT,
  );
}
const holds = <T extends unknown[]>(property: fc.IAsyncPropertyWithHooks<T>, runs = FUZZ.runs) =>
  fc.assert(property, params(runs));
/** A property over one of `among`'s operations with hostile path segments and query, and a caller. */
const onOperations = (
  among: AnyRouteSpec[],
  send: (spec: AnyRouteSpec, path: string, w: Who) => Promise<unknown>,
) =>
  fc.asyncProperty(
    fc.nat(),
    fc.array(segment, { minLength: 1, maxLength: 3 }),
    query,
    who,
    async (i, segs, q, w) => {
      const spec = among[i % among.length];
      if (spec) await send(spec, `${pathOf(spec, segs)}${q}`, w);
    },
  );
/** A POST as the administrator with this content type. */
const post = (path: string, type: string, body: Uint8Array | string, headers: Record<string, string> = {}) =>
  attempt(f, { method: "POST", path, headers: { ...auth("admin"), "content-type": type, ...headers }, body });

describe("fuzzing the API", () => {
  fuzz("paths: every operation with hostile path parameters and callers", async () => {
    await holds(
      onOperations(specs, async (spec, path, w) => {
        const method = spec.method.toUpperCase();
        const withBody = method !== "GET" && method !== "DELETE";
        await attempt(f, {
          method,
          path,
          headers: { ...auth(w), ...(withBody ? { "content-type": "application/json" } : {}) },
          ...(withBody ? { body: "{}" } : {}),
        });
      }),
      FUZZ.runs * 3,
    );
  });

  fuzz("query strings: every list and read with hostile filters, sizes and numbers", async () => {
    const gets = specs.filter((s) => s.method === "get");
    await holds(
      onOperations(gets, (_spec, path, w) => attempt(f, { method: "GET", path, headers: auth(w) })),
      FUZZ.runs * 2,
    );
  });

  fuzz("JSON bodies: every write with hostile values", async () => {
    const writes = specs.filter((s) => s.method !== "get" && s.method !== "delete");
    await holds(
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
      FUZZ.runs * 3,
    );
  });

  fuzz("OData filters: the asset-free event search", async () => {
    await holds(
      fc.asyncProperty(odataFilter, fc.option(fc.integer(), { nil: undefined }), async (filter, top) => {
        await post(
          "/archivist/v1/events/search",
          "application/json",
          JSON.stringify({ filter: filter.slice(0, 4096), ...(top === undefined ? {} : { top }) }),
        );
      }),
    );
  });

  fuzz("CBOR and COSE: statement registration in both forms", async () => {
    await holds(
      fc.asyncProperty(
        coseBody,
        fc.constantFrom("/entries", "/archivist/v1/publicscitt/entries"),
        fc.constantFrom("application/cose", "application/cbor", "application/cose; cose-type=cose-sign1"),
        async (body, path, type) => {
          await post(path, type, body);
        },
      ),
    );
  });

  fuzz("multipart: blob uploads truncated, with corrupted boundaries and part headers", async () => {
    await holds(
      fc.asyncProperty(multipart, async ({ contentType, body }) => {
        await post("/archivist/v1/blobs", contentType, body);
      }),
    );
  });

  fuzz("compressed bodies: every encoding, damaged bytes, unknown encodings and bombs", async () => {
    const targets = [
      ["/archivist/v2/assets", "application/json"],
      ["/archivist/v1/events", "application/json"],
      ["/archivist/v1/blobs", "multipart/form-data; boundary=B"],
      ["/archivist/iam/v1/appidp/token", "application/x-www-form-urlencoded"],
      ["/entries", "application/cose"],
    ] as const;
    await holds(
      fc.asyncProperty(compressed, fc.nat(), async ({ encoding, body }, i) => {
        const [path, type] = targets[i % targets.length] ?? targets[0];
        await post(path, type, body, { "content-encoding": encoding });
      }),
    );
  });

  fuzz("page tokens: signed with wrongly typed fields, tampered, or junk", async () => {
    const lists = [
      "/archivist/v2/assets",
      "/archivist/v2/assets/-/events",
      "/archivist/v2/locations",
      "/archivist/iam/v1/applications",
    ];
    await holds(
      fc.asyncProperty(pageToken(f.hmacKey, f.tenantA), fc.nat(), async (token, i) => {
        await attempt(f, {
          method: "GET",
          path: `${lists[i % lists.length]}?page_token=${pct(token)}`,
          headers: auth("admin"),
        });
      }),
    );
  });

  fuzz("JWTs: our signature over wrongly typed claims, and malformed tokens", async () => {
    const key = await f.s.service.ctx.keys.get("token", "RS256");
    const privateKey = await servicePrivateKey(f.s.service.ctx.keys, "token", "RS256");
    const base = f.s.service.ctx.baseUrl;
    await holds(
      fc.asyncProperty(jwtClaims, fc.boolean(), async (claims, ours) => {
        const token = await new SignJWT({
          ...(ours ? { iss: appIdpIssuer(base), aud: tokenAudience(base) } : {}),
          ...claims,
        })
          .setProtectedHeader({ alg: "RS256", kid: key.kid })
          .sign(privateKey)
          .catch(() => "x.y.z");
        const status = await attempt(f, {
          method: "GET",
          path: "/archivist/v2/assets",
          headers: { authorization: `Bearer ${token}` },
        });
        expect([200, 401, 429]).toContain(status);
      }),
    );
    await holds(
      fc.asyncProperty(junkJwt, async (token) => {
        const status = await attempt(f, {
          method: "GET",
          path: "/archivist/v2/assets",
          headers: { authorization: `Bearer ${token.replace(/[\r\n\0]/g, "")}` },
        });
        expect([400, 401]).toContain(status);
      }),
    );
  });

  fuzz("SCITT x5chain: statements carrying hostile chains, with and without a token", async () => {
    const pki = (name: string) => readFileSync(new URL(`../../fixtures/pki/${name}`, import.meta.url));
    // The tenancy trusts the fixtures' CA and takes statements by signature: the chains reach
    // every step of the check (path, signature, issuer binding), not only the first refusal.
    const ca = await f.s.api("/archivist/v1/tlscacertificates", {
      method: "POST",
      token: f.admin,
      json: { display_name: "fuzz CA", certificate: pki("ca.pem").toString("utf8") },
    });
    expect(ca.status).toBe(200);
    const open = await f.s.api("/archivist/v1/scitt/registration-policy", {
      method: "PUT",
      token: f.admin,
      json: { open: true, requests_per_second: 10_000 },
    });
    expect(open.status).toBe(200);
    const certificates = [
      "issuer.pem",
      "ca.pem",
      "intermediate.pem",
      "via-intermediate.pem",
      "sub-ca.pem",
      "via-sub-ca.pem",
      "limited.pem",
      "named.pem",
      "unknown-critical.pem",
    ].map((n) => new Uint8Array(new X509Certificate(pki(n)).raw));
    const signer = nodeSigner(createPrivateKey(pki("issuer.pk8.pem")));
    const base = decodeSign1(
      eventToStatement(VCON_CREATED_EVENT, { issuer: "https://conserver.example", kid: "x5" }, signer),
    );
    await holds(
      fc.asyncProperty(
        x5chainValue(certificates),
        fc.boolean(),
        fc.constantFrom<"admin" | "none">("admin", "none"),
        fc.constantFrom("/entries", `/tenants/${f.tenantA}/entries`, "/archivist/v1/publicscitt/entries"),
        async (chain, inProtected, w, path) => {
          const protectedHeader = new Map(base.protectedHeader);
          const unprotectedHeader = new Map<CborValue, CborValue>();
          (inProtected ? protectedHeader : unprotectedHeader).set(HEADER.x5chain, chain);
          const body = signSign1(
            { protectedHeader, unprotectedHeader, payload: base.payload as Uint8Array },
            signer,
          );
          const status = await attempt(f, {
            method: "POST",
            path,
            headers: { ...auth(w), "content-type": "application/cose" },
            body,
          });
          expect([0, 200, 201, 202, 400, 401, 403, 413, 429]).toContain(status);
        },
      ),
      FUZZ.runs * 2,
    );
  });

  fuzz("stored bytes: every route that serves them, with hostile ranges, queries and callers", async () => {
    const form = new FormData();
    form.append("file", new Blob(["<html><script>alert(1)</script></html>"]), "page.html");
    const up = await f.s.api("/archivist/v1/blobs", { method: "POST", token: f.admin, body: form });
    expect(up.status).toBe(200);
    const blob = (await up.json()) as { identity: string; hash: { value: string } };
    const blobUuid = blob.identity.split("/").pop() as string;
    const attachment = {
      arc_attribute_type: "arc_attachment",
      arc_blob_identity: blob.identity,
      arc_blob_hash_alg: "SHA256",
      arc_blob_hash_value: blob.hash.value,
      arc_file_name: "page.html",
    };
    const assets: string[] = [];
    let event = "";
    for (const isPublic of [true, false]) {
      const res = await f.s.api("/archivist/v2/assets", {
        method: "POST",
        token: f.admin,
        json: { public: isPublic, attributes: { arc_display_type: "call", page: attachment } },
      });
      expect(res.status).toBe(200);
      const asset = ((await res.json()) as { identity: string }).identity.split("/").pop() as string;
      assets.push(asset);
      const ev = await f.s.api(`/archivist/v2/assets/${asset}/events`, {
        method: "POST",
        token: f.admin,
        json: {
          operation: "Record",
          behaviour: "RecordEvidence",
          event_attributes: { arc_display_type: "evidence", page: attachment },
        },
      });
      expect(ev.status).toBe(200);
      event = ((await ev.json()) as { identity: string }).identity.split("/").pop() as string;
    }
    const [pub, priv] = assets;
    const userBytes = [
      `/archivist/v1/blobs/${blobUuid}`,
      `/archivist/v2/attachments/publicassets/${pub}/${blobUuid}`,
      `/archivist/v2/attachments/assets/${priv}/${blobUuid}`,
      `/archivist/v2/attachments/assets/${priv}/events/${event}/${blobUuid}`,
      `/archivist/v2/attachments/publicassets/${pub}/events/${event}/${blobUuid}`,
    ];
    const others = [
      "/entries/events_00000000-0000-4000-8000-000000000000/statement",
      "/archivist/v1/publicscitt/entries/events_00000000-0000-4000-8000-000000000000",
      `/archivist/v1/merklelogs/${f.tenantA}/tlog/tile/0/000`,
      `/archivist/v1/merklelogs/${f.tenantA}/tlog/tile/entries/000`,
      `/archivist/v1/merklelogs/${f.tenantA}/tlog/checkpoint`,
    ];
    const sandboxed = (path: string) => (res: Response) => {
      if (res.status !== 200 && res.status !== 206 && res.status !== 416) return;
      const csp = res.headers.get("content-security-policy") ?? "";
      if (!/(^|; )sandbox(;|$)/.test(csp) || !csp.includes("default-src 'none'"))
        throw new Error(`${res.status} ${path} served user bytes without a sandboxing CSP: ${csp}`);
      if (!/^attachment/.test(res.headers.get("content-disposition") ?? ""))
        throw new Error(`${res.status} ${path} served user bytes without Content-Disposition: attachment`);
    };
    await holds(
      fc.asyncProperty(
        fc.nat(),
        fc.option(rangeHeader, { nil: undefined }),
        fc.constantFrom(
          "",
          "?strict=true",
          "?allow_insecure=true",
          "?transparent=true",
          "?profile=x",
          "?strict=",
        ),
        fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
        who,
        async (i, range, q, accept, w) => {
          const paths = [...userBytes, ...others];
          const path = paths[i % paths.length] as string;
          await attempt(f, {
            method: "GET",
            path: `${path}${q}`,
            headers: {
              ...auth(w),
              ...(range === undefined ? {} : { range }),
              ...(accept === undefined ? {} : { accept: accept.replace(/[^\x20-\x7e]/g, "") }),
            },
            ...(userBytes.includes(path) ? { check: sandboxed(path) } : {}),
          });
        },
      ),
      FUZZ.runs * 3,
    );
  });
});
