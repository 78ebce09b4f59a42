import { createPublicKey } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  missingPythonModules,
  PYTHON,
  PYTHON_DIR,
  type PythonRun,
  runPython,
  unpackSnapshot,
} from "../../helpers/python-interop.js";
import { startTestService, type TestService } from "../../helpers/service.js";

/*
 * DataTrails' own SCITT client, datatrails/datatrails-scitt-samples (commit d2d66c5), run
 * unmodified against the DataTrails-form routes: generate a key, create a hashed signed
 * statement, register it (the script waits for the operation, reads the entry's public event,
 * recomputes DataTrails' v3 leaf and verifies the receipt with the key its cnf carries), check
 * the operation's status, and verify the receipt and the transparent statement.
 *
 * Its sources are not in a registry this project reaches: give the git dirs of fetched
 * snapshots, SCITT_SAMPLES_GIT (github:datatrails/datatrails-scitt-samples) and PYCOSE_GIT
 * (github:TimothyClaeys/pycose, tag v1.0.1, which Debian does not ship); without them the suite
 * is skipped. Python and the rest come from Debian: python3-cbor2 python3-ecdsa python3-requests
 * python3-cryptography python3-attr. `test/interop/python/shims/bencodepy.py` stands in for the
 * one module Debian lacks. README.md ("DataTrails' SCITT samples") names the command. Given
 * SDK_GIT (github:datatrails/datatrails-python; SDK_REF, default v0.35.0, the newest), the SDK's
 * `post_binary` registers too (python3-requests-toolbelt python3-backoff python3-iso8601
 * python3-jinja2 python3-yaml python3-xmltodict python3-certifi; the shims stand in for the three
 * modules of its own that Debian lacks).
 */
const SAMPLES_GIT = process.env.SCITT_SAMPLES_GIT;
/** The DataTrails Python SDK (github:datatrails/datatrails-python), for its `post_binary`: optional. */
const SDK_GIT = process.env.SDK_GIT;
const SDK_REF = process.env.SDK_REF ?? "v0.35.0";
const PYCOSE_GIT = process.env.PYCOSE_GIT;
const SAMPLES_REF = process.env.SCITT_SAMPLES_REF ?? "d2d66c5";
const PYCOSE_REF = process.env.PYCOSE_REF ?? "v1.0.1";
const shims = join(PYTHON_DIR, "shims");
const runnable = SAMPLES_GIT !== undefined && PYCOSE_GIT !== undefined;
const unpack = (gitDir: string, ref: string) => unpackSnapshot(gitDir, ref, "scitt-samples");
type Run = PythonRun;

let s: TestService;
let work: string;
let env: NodeJS.ProcessEnv;

/**
 * Runs Python with `args` in the run's directory and environment (`pythonPath` first on the path).
 * Asynchronously: the service it calls runs in this same process.
 */
function python(args: string[], pythonPath?: string): Promise<Run> {
  const withPath = pythonPath ? { ...env, PYTHONPATH: `${pythonPath}:${env.PYTHONPATH}` } : env;
  return runPython(args, { cwd: work, env: withPath });
}

/** Runs one of the samples' scripts as its console entry point would. */
function script(name: string, args: string[]): Promise<Run> {
  return python(["-m", `datatrails_scitt_samples.scripts.${name}`, ...args]);
}

const ok = (r: Run, what: string) => expect(r.code, `${what}: ${r.out}\n${r.err}`).toBe(0);

describe.runIf(runnable)("DataTrails' SCITT samples, unmodified, against the DataTrails-form routes", () => {
  beforeAll(async () => {
    const missing = missingPythonModules(["cbor2", "ecdsa", "requests", "cryptography", "attr"]);
    if (!existsSync(PYTHON) || missing.length)
      throw new Error(
        `missing ${missing.join(", ") || PYTHON}: apt-get install python3-cbor2 python3-ecdsa python3-requests python3-cryptography python3-attr`,
      );
    const samples = unpack(SAMPLES_GIT as string, SAMPLES_REF);
    const pycose = unpack(PYCOSE_GIT as string, PYCOSE_REF);
    s = await startTestService({ ARCHIVIST_SEAL_INTERVAL_MS: "100" });
    work = mkdtempSync(join(tmpdir(), "scitt-samples-run-"));
    env = {
      PATH: process.env.PATH,
      HOME: work,
      PYTHONPATH: [samples, pycose, shims].join(":"),
      PYTHONDONTWRITEBYTECODE: "1",
      DATATRAILS_URL: s.url,
      DATATRAILS_CLIENT_ID: s.a.clientId,
      DATATRAILS_CLIENT_SECRET: s.a.clientSecret,
    };
  }, 180_000);
  afterAll(() => s?.stop());

  it("register → status → receipt → verify: each script succeeds, and verification fails for another leaf", async () => {
    ok(await script("generate_example_key", ["--signing-key-file", "key.pem"]), "generate_example_key");
    writeFileSync(join(work, "payload.json"), '{"name": "R2D2"}\n');
    writeFileSync(join(work, "metadata.json"), '{"key1": "value", "key2": "42"}\n');
    ok(
      await script("create_hashed_signed_statement", [
        "--issuer",
        "github.com/datatrails/datatrails-scitt-samples/Taskfile.yml",
        "--subject",
        "test:wheel",
        "--payload-file",
        "payload.json",
        "--payload-location",
        "https://storage.example/test:wheel",
        "--metadata-file",
        "metadata.json",
        "--signing-key-file",
        "key.pem",
        "--output-file",
        "signed-statement.cbor",
      ]),
      "create_hashed_signed_statement",
    );
    // The tenancy trusts the samples' key (their statements name it `testkey`).
    const jwk = createPublicKey(readFileSync(join(work, "key.pem"))).export({ format: "jwk" });
    const trusted = await s.api("/archivist/v1/scitt/keys", {
      method: "POST",
      token: await s.token(s.a),
      json: { kid: "testkey", public_jwk: jwk },
    });
    expect(trusted.status, await trusted.clone().text()).toBe(200);

    const registered = await script("register_signed_statement", [
      "--signed-statement-file",
      "signed-statement.cbor",
      "--output-file",
      "transparent-statement.cbor",
      "--output-receipt-file",
      "statement-receipt.cbor",
    ]);
    ok(registered, "register_signed_statement");
    const { entryid, leaf } = JSON.parse(registered.out.trim().split("\n").pop() as string) as {
      entryid: string;
      leaf: string;
    };
    expect(entryid).toMatch(/^assets_[0-9a-f-]{36}_events_[0-9a-f-]{36}$/);
    expect(leaf).toMatch(/^[0-9a-f]{64}$/);

    // The registration is its own operation: its status names the entry.
    const status = await script("check_operation_status", ["--operation-id", entryid]);
    ok(status, "check_operation_status");
    expect(status.out.trim()).toBe(entryid);

    // The receipt, against the leaf the script recomputes from the entry's public event.
    const byEntry = await script("verify_receipt", [
      "--receipt-file",
      "statement-receipt.cbor",
      "--entryid",
      entryid,
    ]);
    ok(byEntry, "verify_receipt --entryid");
    expect(byEntry.out).toContain("verification succeeded");
    const transparent = await script("verify_receipt", [
      "--transparent-statement-file",
      "transparent-statement.cbor",
      "--leaf",
      leaf,
    ]);
    ok(transparent, "verify_receipt --transparent-statement-file");
    expect(transparent.out).toContain("verification succeeded");
    // The same check fails for a leaf the log does not hold.
    const wrong = await script("verify_receipt", [
      "--receipt-file",
      "statement-receipt.cbor",
      "--leaf",
      "00".repeat(32),
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain("verification failed");
  }, 180_000);

  // The SDK (given SDK_GIT) posts a statement with `post_binary`, as application/octet-stream.
  it.runIf(SDK_GIT !== undefined)(
    "the newest SDK's post_binary registers a statement the samples made",
    async () => {
      const sdk = unpack(SDK_GIT as string, SDK_REF);
      writeFileSync(join(sdk, "archivist", "about.py"), `__version__ = "${SDK_REF}"\n`);
      writeFileSync(join(work, "payload2.json"), '{"name": "C3PO"}\n');
      ok(
        await script("create_hashed_signed_statement", [
          "--issuer",
          "github.com/datatrails/datatrails-scitt-samples/Taskfile.yml",
          "--subject",
          "test:sdk",
          "--payload-file",
          "payload2.json",
          "--payload-location",
          "https://storage.example/test:sdk",
          "--signing-key-file",
          "key.pem",
          "--output-file",
          "sdk-statement.cbor",
        ]),
        "create_hashed_signed_statement",
      );
      const posted = await python(
        [
          "-c",
          [
            "import os, cbor2",
            "from archivist.archivist import Archivist",
            "url = os.environ['DATATRAILS_URL']",
            "arch = Archivist(url, (os.environ['DATATRAILS_CLIENT_ID'], os.environ['DATATRAILS_CLIENT_SECRET']))",
            "out = arch.post_binary(f'{url}/archivist/v1/publicscitt/entries', open('sdk-statement.cbor', 'rb').read())",
            "print(cbor2.loads(out)['OperationID'])",
          ].join("\n"),
        ],
        [sdk, shims].join(":"),
      );
      ok(posted, "post_binary");
      const entry = posted.out.trim();
      expect(entry).toMatch(/^assets_[0-9a-f-]{36}_events_[0-9a-f-]{36}$/);
      // The samples wait for it, as for their own registration.
      const status = await script("check_operation_status", ["--operation-id", entry]);
      ok(status, "check_operation_status");
      expect(status.out.trim()).toBe(entry);
    },
    180_000,
  );
});

describe.skipIf(runnable)("DataTrails' SCITT samples", () => {
  it.skip("need SCITT_SAMPLES_GIT and PYCOSE_GIT (git dirs of fetched snapshots): see README.md", () =>
    undefined);
});
