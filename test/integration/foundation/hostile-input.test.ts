import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AnyRouteSpec } from "../../../src/http/route.js";
import { rng } from "../../helpers/random.js";
import { allSpecs } from "../../helpers/route-specs.js";
import { adminAndReader, forSuite } from "../../helpers/service.js";

const r = rng(20261123);
const FIELDS = [
  "attributes",
  "event_attributes",
  "asset_attributes",
  "display_name",
  "filters",
  "or",
  "user_attributes",
  "trails",
  "operation",
  "behaviour",
  "behaviours",
  "page_size",
  "public",
  "proof_mechanism",
  "subject",
  "identity",
  "email",
  "roles",
  "subjects",
  "wallet_pub_key",
  "tessera_pub_key",
  "compliance_type",
  "event_display_type",
  "time_period_seconds",
  "asset_filter",
  "latitude",
  "longitude",
  "description",
  "custom_claims",
  "credentials",
  "client_secret",
  "pem",
  "signed_statement",
  "timestamp_declared",
  "principal_declared",
  "chain_id",
  "arc_display_type",
  "arc_profile",
  "arc_home_location_identity",
];
const WEIRD = [
  "",
  "x",
  "*",
  "-1",
  "1e999",
  "NaN",
  "null",
  "true",
  "{}",
  "[]",
  "0x10",
  "9".repeat(40),
  "é✓𝄞",
  "'; drop table events; --",
  "../../etc/passwd",
  "a".repeat(5000),
  randomUUID(),
  `assets/${randomUUID()}`,
  "2026-13-45T99:99:99Z",
  "-",
  "%",
  "\\",
];

function junk(depth: number): unknown {
  const k = r.int(depth > 3 ? 6 : 9);
  if (k === 0) return r.pick(WEIRD);
  if (k === 1) return r.pick([0, -1, 1.5, 2 ** 53 + 2, -1e308, 1e308]);
  if (k === 2) return r.chance(0.5);
  if (k === 3) return null;
  if (k === 4) return r.int(1000);
  if (k === 5) return r.pick(WEIRD);
  if (k === 6) return Array.from({ length: r.int(4) }, () => junk(depth + 1));
  return Object.fromEntries(
    Array.from({ length: 1 + r.int(4) }, () => [
      r.chance(0.7) ? r.pick(FIELDS) : r.pick(WEIRD).slice(0, 40),
      junk(depth + 1),
    ]),
  );
}

function pathFor(spec: AnyRouteSpec): string {
  return spec.path.replace(/\{[^}]+\}/g, () =>
    encodeURIComponent(r.pick([randomUUID(), randomUUID(), "not-a-uuid", "-", "a".repeat(300), "..", "0"])),
  );
}

function queryFor(): string {
  const q = new URLSearchParams();
  for (let i = r.int(4); i > 0; i--) {
    const key = r.pick([
      "page_size",
      "page_token",
      "order_by",
      "attributes.k",
      "event_attributes.k",
      "asset_attributes.k",
      "confirmation_status",
      "minimum_trust",
      "proof_mechanism",
      "timestamp_accepted_since",
      "tracked",
      "at_time",
      "display_name",
      "top",
      "skip",
      "filter",
      "compliant_at",
      "principal_declared.issuer",
      "email",
    ]);
    q.append(key, r.pick(WEIRD));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

// An application without roles (the reader): it reaches the access checks administrators skip.
const suite = forSuite(() => adminAndReader({ display_name: "plain" }));

describe("hostile input on every operation", () => {
  it("never answers 5xx, and every error is the JSON error body", async () => {
    const specs = allSpecs();
    expect(specs.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const spec of specs) {
      for (let round = 0; round < 12; round++) {
        const path = `${pathFor(spec)}${queryFor()}`;
        const withBody = spec.method !== "get" && spec.method !== "delete";
        const body = withBody ? JSON.stringify(round === 0 ? {} : junk(0)) : undefined;
        const res = await suite.s.api(path, {
          method: spec.method.toUpperCase(),
          // Mostly the administrator; a plain application every third round; no token in the last.
          ...(round === 11 ? {} : { token: round % 3 === 2 ? suite.reader : suite.admin }),
          ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
        });
        const text = await res.text();
        const where = `${spec.method.toUpperCase()} ${path.slice(0, 120)} ${body?.slice(0, 120) ?? ""}`;
        if (res.status >= 500) failures.push(`${res.status} ${where}: ${text.slice(0, 200)}`);
        // SCRAPI routes answer RFC 9290 concise problem details (CBOR) instead.
        else if (
          res.status >= 400 &&
          (res.headers.get("content-type") ?? "").startsWith("application/json")
        ) {
          const e = JSON.parse(text) as Record<string, unknown>;
          const grpc =
            typeof e.code === "number" && typeof e.message === "string" && Array.isArray(e.details);
          // The DataTrails-form SCITT routes refuse statements as `{type, detail}` (design/scitt.md).
          const scitt = path.includes("scitt") && typeof e.type === "string" && typeof e.detail === "string";
          if (!grpc && !scitt) failures.push(`${res.status} ${where}: error body ${text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
