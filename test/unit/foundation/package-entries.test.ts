import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { appendLeaves } from "../../../src/core/log/mmr-append.js";
import { buildReceipt } from "../../../src/core/log/receipt.js";
import { includedRoot, inclusionProof, leafIndexOfMmrIndex } from "../../../src/formats/mmr/index.js";
import { fixtureJson } from "../../helpers/fixtures.js";
import { deterministicSigner, vectorPublicKey } from "../../helpers/vector-key.js";

// `vcon-archivist/verify` as another program gets it: resolved by the package's name through
// package.json `exports` (a package may name itself), and loaded from what the build wrote.
type VerifyEntry = typeof import("../../../src/verify/index.js");
type ClientEntry = typeof import("../../../src/client/index.js");

const root = fileURLToPath(new URL("../../../", import.meta.url));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

interface EventVectors {
  merklelog_v0_asset_events: {
    cases: Array<{
      name: string;
      event: Record<string, unknown> & {
        event_attributes: Record<string, unknown>;
        tenant_identity: string;
        merklelog_entry: { commit: { index: string; idtimestamp: string } };
      };
      mmrIndex: number;
      leaf: string;
    }>;
  };
}
interface StatementVectors {
  preimage: { utf8: string };
  statements: { datatrailsPrivateLabels: { coseSign1AttachedHex: string } };
}

const events = fixtureJson<EventVectors>("vectors/datatrails-event-hashes.json");
const statements = fixtureJson<StatementVectors>("vectors/signed-statement-generated.json");
// veracity's KnownGoodPublicEvent: a published record whose leaf is a published known answer.
const known = events.merklelog_v0_asset_events.cases[0]!;

/** An MMR receipt for the known record at its own log index, signed with the RFC 6979 vector key. */
function knownReceipt(): Uint8Array {
  const leaf = unhex(known.leaf);
  const count = leafIndexOfMmrIndex(known.mmrIndex) + 1;
  const leaves = Array.from({ length: count }, (_, i) =>
    i === count - 1 ? leaf : new Uint8Array(32).fill(i % 251),
  );
  const mmr = appendLeaves(0, leaves, () => new Uint8Array());
  const node = (i: number) => mmr.nodes[i] as Uint8Array;
  const path = inclusionProof(mmr.newSize, known.mmrIndex, node);
  return buildReceipt(
    {
      kid: "svc",
      issuer: "https://archivist.example",
      subject: known.event.tenant_identity,
      mmrIndex: known.mmrIndex,
      path,
      peak: includedRoot(known.mmrIndex, leaf, path),
      idtimestamp: known.event.merklelog_entry.commit.idtimestamp,
    },
    deterministicSigner,
  );
}

let verify: VerifyEntry;
let client: ClientEntry;

beforeAll(async () => {
  // The same freshness check `npm start` makes: compiles only when dist/ is missing or stale.
  execFileSync(process.execPath, ["scripts/ensure-built.mjs"], { cwd: root, stdio: "inherit" });
  const require = createRequire(`${root}package.json`);
  const resolved = require.resolve("vcon-archivist/verify");
  expect(resolved).toBe(`${root}dist/src/verify/index.js`);
  verify = (await import(pathToFileURL(resolved).href)) as VerifyEntry;
  const clientEntry = require.resolve("vcon-archivist/client");
  expect(clientEntry).toBe(`${root}dist/src/client/index.js`);
  client = (await import(pathToFileURL(clientEntry).href)) as ClientEntry;
}, 180_000);

describe("the package entry vcon-archivist/verify", () => {
  it("as built offers exactly what the sources export (which the README lists, readme-exports.test.ts)", async () => {
    const source = await import("../../../src/verify/index.js");
    expect(Object.keys(verify).sort()).toEqual(Object.keys(source).sort());
  });

  it("recomputes the published leaf of a known record", () => {
    expect(hex(verify.leafOfRecord(known.event))).toBe(known.leaf);
  });

  it("verifies the known record's receipt, and fails a tampered record or receipt", () => {
    const receipt = knownReceipt();
    const keys = new Map([["svc", vectorPublicKey]]);
    const ok = verify.verifyRecordReceipt(known.event, receipt, keys);
    expect(ok).toMatchObject({ ok: true, profile: "mmr", mmrIndex: known.mmrIndex, leaf: known.leaf });

    const tampered = { ...known.event, event_attributes: { ...known.event.event_attributes, x: "y" } };
    expect(verify.verifyRecordReceipt(tampered, receipt, keys).ok).toBe(false);
    const flipped = Uint8Array.from(receipt);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1;
    expect(verify.verifyRecordReceipt(known.event, flipped, keys).ok).toBe(false);
    expect(verify.verifyRecordReceipt(known.event, receipt, new Map()).ok).toBe(false);
  });

  it("verifies the generated signed statement and its payload, and fails a tampered one", () => {
    const statement = unhex(statements.statements.datatrailsPrivateLabels.coseSign1AttachedHex);
    const keys = { issuerKeys: new Map([["test-key-1", vectorPublicKey]]), serviceKeys: new Map() };
    expect(verify.verifyStatement(statement, keys)).toMatchObject({ ok: true, receipts: 0 });
    const payload = new TextEncoder().encode(statements.preimage.utf8);
    expect(verify.statementPayloadMatches(statement, payload)).toBe(true);
    expect(verify.statementPayloadMatches(statement, new TextEncoder().encode("other"))).toBe(false);
    const flipped = Uint8Array.from(statement);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1;
    expect(verify.verifyStatement(flipped, keys).ok).toBe(false);
  });
});

describe("the package entry vcon-archivist/client", () => {
  it("offers the typed client and its token source", () => {
    expect(typeof client.ApiClient).toBe("function");
    expect(typeof client.TokenSource).toBe("function");
    expect(client.tokenUrl({ url: "https://a.example/" })).toBe(
      "https://a.example/archivist/iam/v1/appidp/token",
    );
  });

  it("carries no server code: its types come from the route schemas, its modules import only the bounded reads of src/net", () => {
    const dir = `${root}dist/src/client`;
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".js"))) {
      const imports = [...readFileSync(`${dir}/${file}`, "utf8").matchAll(/from "([^"]+)"/g)].map(
        (m) => m[1],
      );
      for (const spec of imports)
        expect(spec, `${file} imports ${spec}`).not.toMatch(/^\.\.\/(?!net\/[a-z-]+\.js$)/);
    }
  });
});
