import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApiRefusedError, ApiUnavailableError } from "../../../src/client/errors.js";
import type { ConfigError } from "../../../src/config.js";
import type { BlobFormatError } from "../../../src/core/blobs/blob-format-error.js";
import type { DerError } from "../../../src/core/x509/der.js";
import type { DidX509Error } from "../../../src/core/x509/did-x509.js";
import { ApiError } from "../../../src/errors/api-error.js";
import type { ErrorCode } from "../../../src/errors/codes.js";
import { QueryError } from "../../../src/errors/query-error.js";
import { CborError } from "../../../src/formats/cbor/error.js";
import type { CoseError } from "../../../src/formats/cose/sign1.js";
import type { StatementError } from "../../../src/formats/scitt/statement.js";
import type { NoteError } from "../../../src/formats/tlog/note.js";
import type { VconError } from "../../../src/formats/vcon/errors.js";
import { CodedError } from "../../../src/index.js";
import type { LookupError } from "../../../src/lookup/public-api.js";
import type { RegistrationClosed, RegistrationRefused } from "../../../src/services/scitt/scitt.js";
import type { StorageError } from "../../../src/store/drivers/db.js";
import type { PolicyError } from "../../../src/verify/verdict/policy.js";
import type { ClamdError } from "../../../src/workers/clamd.js";

// src/errors/codes.ts writes the union out so that it depends on nothing; the type checker holds every
// exported error class's code to it (a class with a code outside it fails `npm run typecheck`),
// and the test below the union to the classes.
type Within<C extends ErrorCode> = C;
type EveryClassCode = Within<
  | ApiError["code"]
  | ApiRefusedError["code"]
  | ApiUnavailableError["code"]
  | BlobFormatError["code"]
  | CborError["code"]
  | ClamdError["code"]
  | CoseError["code"]
  | DerError["code"]
  | DidX509Error["code"]
  | LookupError["code"]
  | NoteError["code"]
  | PolicyError["code"]
  | QueryError["code"]
  | RegistrationClosed["code"]
  | RegistrationRefused["code"]
  | StatementError["code"]
  | StorageError["code"]
  | VconError["code"]
  | ConfigError["code"]
>;

// The error vocabulary (src/errors/codes.ts, plugins/conserver/errors.ts): every error class derives
// from CodedError, and every code it can carry is in the exported union a caller switches on.
const repo = resolve(import.meta.dirname, "../../..");

function sources(dir: string): string[] {
  return readdirSync(join(repo, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => join(dir, f));
}
const all = [...sources("src"), ...sources("plugins")].map((path) => ({
  path,
  text: readFileSync(join(repo, path), "utf8"),
}));

describe("one error vocabulary", () => {
  it("no error class derives from Error directly, save the client's, which carry a code all the same", () => {
    // The client's entry imports nothing outside its folder but the bounded reads of src/net
    // (package-entries.test.ts); net's BodyTooLarge is the client's (its entry exports it).
    const client = all.filter(
      ({ path }) => path.startsWith(join("src", "client")) || path.startsWith(join("src", "net")),
    );
    const clientErrors = client.flatMap(({ text }) => [
      ...text.matchAll(/class \w+ extends Error \{\n\s+readonly code = "(\w+)"/g),
    ]);
    expect(clientErrors.map((m) => m[1])).toEqual(["API_REFUSED", "API_UNAVAILABLE"]);
    const plain = all
      .filter((f) => !client.includes(f))
      .flatMap(({ path, text }) =>
        [...text.matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g)].map(
          (m) => `${path}: ${m[1]}`,
        ),
      );
    expect(plain).toEqual([]);
  });

  it("every CodedError's code is in the union its entry exports", () => {
    // A code outside the union fails the type check (EveryClassCode); here one from each side.
    const codes: EveryClassCode[] = ["CBOR", "NOT_FOUND", "LOOKUP_FAILED"];
    expect(codes).toHaveLength(3);
    const vocab = readFileSync(join(repo, "src/errors/codes.ts"), "utf8");
    // The classes whose code is a union of their own are named in the type check above.
    const everyClass = readFileSync(join(repo, "test/unit/foundation/error-codes.test.ts"), "utf8");
    const plugin = readFileSync(join(repo, "plugins/conserver/errors.ts"), "utf8");
    const missing: string[] = [];
    let seen = 0;
    for (const { path, text } of all)
      for (const m of text.matchAll(/class (\w+) extends CodedError<([^>]+)>/g)) {
        seen++;
        const [, name, code] = m as unknown as [string, string, string];
        const union = path.startsWith("plugins/") ? plugin : vocab;
        const named = path.startsWith("plugins/")
          ? union.includes(`${name}["code"]`) || union.includes(code.trim())
          : everyClass.includes(`${name}["code"]`) || union.includes(code.trim());
        if (!named) missing.push(`${path}: ${name} (${code})`);
      }
    expect(missing).toEqual([]);
    expect(seen).toBeGreaterThanOrEqual(24);
  });

  it("codes and names are set, and an API error's code follows its kind", () => {
    const cbor = new CborError("truncated");
    expect(cbor).toBeInstanceOf(CodedError);
    expect([cbor.code, cbor.name]).toEqual(["CBOR", "CborError"]);
    expect(new ApiError("not_found", "asset not found").code).toBe("NOT_FOUND");
    const q = new QueryError("ODATA_PARSE", "bad filter", 3);
    expect([q.code, q.kind, q.name]).toEqual(["ODATA_PARSE", "invalid_argument", "QueryError"]);
  });
});
