import { randomUUID } from "node:crypto";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { encode } from "cborg";
import fc from "fast-check";
import { encodePageToken } from "../../src/core/api/page-token.js";
import type { CborValue } from "../../src/formats/cbor/index.js";
import type { AnyRouteSpec } from "../../src/http/route.js";

/** Text that breaks parsers: huge and negative numbers, escapes, separators, odd Unicode. */
const weird = fc.oneof(
  fc.constantFrom(
    "",
    "-1",
    "0",
    "1e999",
    "NaN",
    "null",
    "99999999999999999999",
    "18446744073709551616",
    "9007199254740993",
    "0x10",
    "0xffffffffffffffffff",
    "%00",
    "\u0000",
    "\ud800",
    "../../etc/passwd",
    "'; drop table assets; --",
    "*",
    "{}",
    "[]",
    "true",
    "2026-13-45T99:99:99Z",
    `assets/${randomUUID()}`,
    "a".repeat(5000),
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }).map(String),
  fc.double().map(String),
);

/** Percent-encodes text byte by byte (encodeURIComponent throws on a lone surrogate). */
export function pct(text: string): string {
  let out = "";
  for (const b of Buffer.from(text, "utf8"))
    out += /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).padStart(2, "0")}`;
  return out;
}

/** A path segment: mostly well-formed UUIDs (they reach the handlers), else anything. */
export const segment = fc.oneof(
  { weight: 3, arbitrary: fc.uuid().map(String) },
  { weight: 2, arbitrary: weird.map((w) => pct(w).slice(0, 1200)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("-", "..", "@openapi", "%2F", "%3A", ":verb", "%ED%A0%80", "%FF", "%", "%00"),
  },
);

/** A documented path with its parameters filled in by `segment`. */
export function pathOf(spec: AnyRouteSpec, values: string[]): string {
  let i = 0;
  return spec.path.replace(/\{[^}]+\}/g, () => values[i++ % values.length] ?? "x");
}

const QUERY_KEYS = [
  "page_size",
  "page_token",
  "order_by",
  "attributes.arc_display_type",
  "attributes.secret",
  "attributes.k!",
  "event_attributes.k",
  "asset_attributes.k",
  "principal_declared.issuer",
  "confirmation_status",
  "minimum_trust",
  "proof_mechanism",
  "timestamp_accepted_since",
  "tracked",
  "at_time",
  "display_name",
  "compliant_at",
  "compliance_type",
  "mmr_size",
  "from",
  "to",
  "number",
  "hash",
  "after",
  "strict",
  "transparent",
];

/** A query string of known keys, made-up keys and hostile values. */
export const query = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: weird }),
      weird,
    ),
    { maxLength: 5 },
  )
  .map((pairs) => {
    const q = new URLSearchParams(pairs);
    const s = q.toString();
    return s ? `?${s}` : "";
  });

const FIELDS = [
  "attributes",
  "event_attributes",
  "asset_attributes",
  "behaviours",
  "behaviour",
  "operation",
  "display_name",
  "public",
  "proof_mechanism",
  "filters",
  "access_permissions",
  "trails",
  "event_type",
  "latitude",
  "longitude",
  "compliance_type",
  "asset_filter",
  "time_period_seconds",
  "roles",
  "custom_claims",
  "wallet_pub_key",
  "pem",
  "email",
  "filter",
  "top",
  "skip",
  "events",
  "timestamp_declared",
  "principal_declared",
];

/** JSON bodies: arbitrary values, and objects of the API's own field names holding anything. */
export const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
  fc.record({
    behaviours: fc.constant(["RecordEvidence"]),
    attributes: fc.dictionary(weird, fc.oneof(weird, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 4 }),
  }),
);

const TOKENS = ["eq", "ne", "gt", "lt", "and", "or", "not", "(", ")", ",", "'", "''", "/", "any", "all", ":"];
const ODATA_FIELDS = [
  "trails",
  "event_type",
  "attributes/k",
  "attributes/arc_display_type",
  "origin_tenant",
  "created_by",
  "x",
];
const literal = fc.oneof(
  fc.string({ maxLength: 12 }).map((s) => `'${s.replaceAll("'", "''")}'`),
  fc.string({ maxLength: 12 }),
  fc.integer().map(String),
  fc.constantFrom("null", "true", "1e999", "99999999999999999999", "-0"),
);

/** OData filters: well-formed comparisons joined by operators, then mangled token by token. */
export const odataFilter = fc.oneof(
  fc
    .array(fc.tuple(fc.constantFrom(...ODATA_FIELDS), fc.constantFrom("eq", "ne", "gt", "lt"), literal), {
      minLength: 1,
      maxLength: 4,
    })
    .chain((clauses) =>
      fc
        .array(fc.constantFrom("and", "or", "and not"), {
          minLength: clauses.length,
          maxLength: clauses.length,
        })
        .map((joins) =>
          clauses.map(([f, op, v], i) => `${i ? `${joins[i]} ` : ""}${f} ${op} ${v}`).join(" "),
        ),
    ),
  fc
    .array(fc.oneof(fc.constantFrom(...TOKENS, ...ODATA_FIELDS), literal), { maxLength: 12 })
    .map((t) => t.join(" ")),
  fc.constantFrom("(".repeat(500), "not ".repeat(300), "trails/any(t: t eq 'a')", "contains(trails,'a')"),
);

/** CBOR and COSE: random bytes, arbitrary CBOR, and COSE_Sign1 shapes holding the wrong things. */
export const coseBody = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => encode(v)),
  fc
    .tuple(
      fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.constant(encode(new Map<number, unknown>([[1, -7]])))),
      fc.oneof(
        fc.constant(new Map()),
        fc.jsonValue({ maxDepth: 2 }).map((v) => new Map([[4, v]])),
      ),
      fc.oneof(fc.uint8Array({ maxLength: 60 }), fc.constant(null), fc.string()),
      fc.oneof(fc.uint8Array({ maxLength: 70 }), fc.integer()),
    )
    .map((sign1) => {
      const bytes = encode(sign1);
      // Tag 18 (COSE_Sign1) in front of the array.
      return new Uint8Array([0xd2, ...bytes]);
    }),
);

/** Multipart bodies: proper, truncated at any byte, with a corrupted closing boundary or part headers. */
export const multipart = fc
  .record({
    boundary: fc.oneof(fc.constant("B"), fc.string({ minLength: 1, maxLength: 70 })),
    name: fc.oneof(fc.constant("file"), fc.string({ maxLength: 10 })),
    content: fc.uint8Array({ maxLength: 2000 }),
    cut: fc.option(fc.nat(), { nil: undefined }),
    closing: fc.constantFrom("--B--\r\n", "--C--\r\n", "--B-", "", "--B\r\n", "--B--garbage"),
    headerJunk: fc.option(weird, { nil: undefined }),
  })
  .map(({ boundary, name, content, cut, closing, headerJunk }) => {
    const b = boundary.replace(/[\r\n]/g, "");
    const head = `--${b}\r\ncontent-disposition: form-data; name="${name}"; filename="x"\r\n${headerJunk ? `${headerJunk}\r\n` : ""}\r\n`;
    const whole = Buffer.concat([
      Buffer.from(head),
      Buffer.from(content),
      Buffer.from(`\r\n${closing.replaceAll("B", b)}`),
    ]);
    const body = cut === undefined ? whole : whole.subarray(0, cut % (whole.length + 1));
    return { contentType: `multipart/form-data; boundary=${b}`, body: new Uint8Array(body) };
  });

const bombs = new Map<number, Buffer>();
/** A gzip bomb of `mb` MiB of spaces (a few hundred kB on the wire), built once. */
function bomb(mb: number): Buffer {
  let b = bombs.get(mb);
  if (!b) {
    b = gzipSync(Buffer.alloc(mb * 1024 * 1024, 0x20));
    bombs.set(mb, b);
  }
  return b;
}

/** Compressed bodies: each encoding, truncated or corrupted bytes, unknown encodings, bombs. */
export const compressed = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        encoding: fc.constantFrom(
          "gzip",
          "x-gzip",
          "deflate",
          "br",
          "identity",
          "compress",
          "gzip, br",
          "GZIP",
        ),
        payload: fc.oneof(
          jsonBody.map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
          fc.uint8Array({ maxLength: 200 }),
        ),
        damage: fc.constantFrom("none", "truncate", "flip", "raw"),
        at: fc.nat(),
      })
      .map(({ encoding, payload, damage, at }) => {
        const name = encoding.toLowerCase();
        const packed =
          name === "deflate"
            ? deflateSync(payload)
            : name === "br"
              ? brotliCompressSync(payload)
              : name.includes("gzip")
                ? gzipSync(payload)
                : Buffer.from(payload);
        let body = Buffer.from(packed);
        if (damage === "truncate") body = body.subarray(0, at % (body.length + 1));
        if (damage === "flip" && body.length > 0)
          body[at % body.length] = (body[at % body.length] ?? 0) ^ 0xff;
        if (damage === "raw") body = Buffer.from(payload);
        return { encoding, body: new Uint8Array(body) };
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(12, 40, 200)
      .map((mb) => ({ encoding: "gzip", body: new Uint8Array(bomb(mb)) })),
  },
);

/** Page tokens: correctly signed ones carrying wrongly typed fields, tampered ones, and junk. */
export function pageToken(hmacKey: Uint8Array, tenant: string) {
  const signed = fc
    .tuple(
      fc.oneof(fc.constant("assets"), fc.jsonValue({ maxDepth: 1 })),
      fc.oneof(fc.constant(tenant), fc.jsonValue({ maxDepth: 1 })),
      fc.oneof(fc.constant([]), fc.jsonValue({ maxDepth: 2 })),
      fc.oneof(fc.integer({ min: 1, max: 100 }), fc.jsonValue({ maxDepth: 1 })),
      fc.oneof(fc.integer(), fc.jsonValue({ maxDepth: 1 })),
    )
    .map(([route, t, q, size, after]) =>
      encodePageToken({ route, tenant: t, query: q, pageSize: size, after } as never, hmacKey),
    );
  return fc.oneof(
    signed,
    signed.chain((tok) =>
      fc
        .nat({ max: tok.length - 1 })
        .map((i) => `${tok.slice(0, i)}${tok[i] === "A" ? "B" : "A"}${tok.slice(i + 1)}`),
    ),
    weird,
    fc.string({ maxLength: 200 }),
  );
}

/** JWT claims with the right names and wrong types. */
export const jwtClaims = fc.dictionary(
  fc.constantFrom("sub", "exp", "nbf", "iat", "iss", "aud", "email", "groups", "jti", "client_id", "x"),
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.uuid(), fc.integer(), fc.constant(Number.MAX_SAFE_INTEGER)),
  { maxKeys: 8 },
);

/** Malformed bearer tokens, without a signature of ours. */
export const junkJwt = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc
    .tuple(fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }), fc.string({ maxLength: 40 }))
    .map(([h, p, sig]) =>
      [JSON.stringify(h), JSON.stringify(p)]
        .map((x) => Buffer.from(x ?? "").toString("base64url"))
        .concat(sig)
        .join("."),
    ),
  fc
    .jsonValue({ maxDepth: 2 })
    .map(
      (p) =>
        `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from(JSON.stringify(p) ?? "").toString("base64url")}.`,
    ),
);

/**
 * x5chain header values (COSE label 33): the fixtures' real certificates, each whole, cut short
 * or with a byte changed, among junk byte strings and values that are not byte strings, as one
 * certificate, a chain of any length (past the service's bound too), or not a chain at all.
 */
export function x5chainValue(certificates: Uint8Array[]): fc.Arbitrary<CborValue> {
  const real = fc.constantFrom(...certificates);
  const mutated = fc
    .tuple(real, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean())
    .map(([der, at, xor, cut]) => {
      const out = new Uint8Array(der);
      const i = at % out.length;
      if (cut) return out.slice(0, i);
      out[i] = (out[i] as number) ^ xor;
      return out;
    });
  const item = fc.oneof(
    { weight: 4, arbitrary: real },
    { weight: 4, arbitrary: mutated },
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 3000 }) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null)) },
  );
  return fc.oneof(
    { weight: 2, arbitrary: item },
    { weight: 6, arbitrary: fc.array(item, { maxLength: 12 }) },
    // Past the bound by count: junk that would cost a parse each.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 9, max: 3000 })
        .map((n) => Array.from({ length: n }, () => new Uint8Array(40))),
    },
    { weight: 1, arbitrary: fc.constant(new Map([[1, new Uint8Array(4)]]) as unknown as CborValue) },
  ) as fc.Arbitrary<CborValue>;
}

/** Range headers: well-formed, reversed, past the end, huge, several, and junk. */
export const rangeHeader = fc.oneof(
  fc
    .tuple(fc.option(fc.nat(), { nil: undefined }), fc.option(fc.nat(), { nil: undefined }))
    .map(([a, b]) => `bytes=${a ?? ""}-${b ?? ""}`),
  fc
    .tuple(fc.bigInt({ min: 0n, max: 2n ** 80n }), fc.bigInt({ min: 0n, max: 2n ** 80n }))
    .map(([a, b]) => `bytes=${a}-${b}`),
  fc.constantFrom(
    "bytes=0-0,2-3",
    "bytes=-0",
    "bytes=--1",
    "items=0-1",
    "bytes=1-0",
    "bytes= 0 - 1",
    "bytes=0x1-2",
  ),
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
);
