import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { mirrorCommand } from "../../../src/cli/mirror.js";
import { runCli as archivist } from "../../../src/cli/program.js";
import { ed25519PublicKey, ed25519Signer, formatVkey, signNote } from "../../../src/core/log/note-sign.js";
import { formatCheckpoint } from "../../../src/core/log/tlog-format.js";
import { ED25519 } from "../../../src/formats/tlog/index.js";
import { runCli } from "../../helpers/cli-output.js";

const MAIN = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const closers: Array<() => void> = [];
afterAll(() => {
  for (const c of closers) c();
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as { port: number }).port;
}

/** A loopback server that takes every connection and never answers: its port. */
async function silentServer(): Promise<number> {
  const sockets: Socket[] = [];
  const silent = createTcpServer((s) => sockets.push(s));
  const port = await listen(silent);
  closers.push(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  return port;
}

/** A real process of the CLI: its exit code and output. */
async function cliProcess(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  const code = await new Promise<number | null>((r) => child.once("exit", r));
  return { code, out, err };
}

describe("archivist mirror is bounded", () => {
  it("refuses a checkpoint of 2^53-1 entries signed by the log's own key before fetching a tile, in a heap of 150 MB", async () => {
    const origin = "hostile.example/archivist/v1/merklelogs/6c5a8c0e-2d8f-4e7a-9b1c-0a1b2c3d4e5f/tlog";
    const seed = new Uint8Array(32).fill(5);
    const key = formatVkey(origin, ED25519, ed25519PublicKey(seed));
    const note = signNote(
      formatCheckpoint({
        origin,
        size: Number.MAX_SAFE_INTEGER,
        root: new Uint8Array(32).fill(1),
        extensions: [],
      }),
      [ed25519Signer(origin, seed)],
    );
    const asked: string[] = [];
    const server = createHttpServer((req, res) => {
      asked.push(req.url ?? "");
      if (req.url?.endsWith("/key")) return res.end(key);
      if (req.url?.endsWith("/checkpoint")) return res.end(note);
      res.end(Buffer.alloc(8192));
    });
    const port = await listen(server);
    closers.push(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), "mirror-huge-"));
    // A real process with a small heap: listing the tiles of such a log would exhaust it.
    const child = spawn(
      process.execPath,
      ["--max-old-space-size=150", "--import", "tsx", MAIN, "mirror", `http://127.0.0.1:${port}/tlog`, dir],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (err += c));
    const code = await new Promise<number | null>((r) => child.once("exit", r));
    expect(code, err).toBe(1);
    expect(out).toMatch(
      /^FAILED the checkpoint claims 9007199254740991 entries, more than a mirror copies \(4294967296\)/,
    );
    expect(asked.filter((u) => u.includes("/tile/"))).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  // Issue 71: the only limits were a minute per request and an hour overall, so a server that
  // took the connection and never answered held the mirror (still waiting after 20 s).
  it("gives up on a request never answered after the stated limit, 15 s by default; verify --mirror then cannot evaluate (4)", async () => {
    const port = await silentServer();
    const dir = mkdtempSync(join(tmpdir(), "mirror-silent-"));
    const record = join(dir, "record.json");
    writeFileSync(record, "{}");
    // The verifier reading the same log, in a process of its own, meanwhile.
    const verifying = cliProcess(["verify", record, "--mirror", `http://127.0.0.1:${port}/tlog`]);
    const started = Date.now();
    const r = await runCli((a) => mirrorCommand.run(a), [`http://127.0.0.1:${port}/tlog`, join(dir, "m")]);
    const took = Date.now() - started;
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^FAILED GET http:\/\/127\.0\.0\.1:\d+\/tlog\/key: no answer within 15s, the time limit of one request \(--timeout\)\n$/,
    );
    expect(took).toBeGreaterThanOrEqual(14_500);
    expect(took).toBeLessThan(20_000);
    const verified = await verifying;
    expect(verified.code, verified.err).toBe(4);
    expect(verified.out).toMatch(/^CANNOT EVALUATE: GET \S+\/tlog\/checkpoint: no answer within 15s/);
    const help = await runCli(archivist, ["mirror", "--help"]);
    expect(help.out).toMatch(/each request --timeout \(default 15s/);
  }, 60_000);

  it("takes its time limit per request from --timeout; a malformed one is a usage error", async () => {
    const port = await silentServer();
    const dir = mkdtempSync(join(tmpdir(), "mirror-silent-"));
    const started = Date.now();
    const r = await runCli(
      (a) => mirrorCommand.run(a),
      [`http://127.0.0.1:${port}/tlog`, dir, "--timeout", "0.5"],
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^FAILED GET \S+\/tlog\/key: no answer within 0\.5s, the time limit of one request/,
    );
    const bad = await runCli(
      (a) => mirrorCommand.run(a),
      [`http://127.0.0.1:${port}/tlog`, dir, "--timeout", "0"],
    );
    expect(bad).toMatchObject({
      code: 64,
      out: "",
      err: 'archivist mirror: --timeout takes seconds > 0, got "0"\n',
    });
  });

  it("ends at its overall deadline against a server that never answers", async () => {
    const port = await silentServer();
    const dir = mkdtempSync(join(tmpdir(), "mirror-silent-"));
    const r = await runCli(
      (a) => mirrorCommand.run(a),
      [`http://127.0.0.1:${port}/tlog`, dir, "--deadline", "1"],
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^FAILED GET http:\/\/127\.0\.0\.1:\d+\/tlog\/key: the overall deadline of 1s passed/,
    );
    const bad = await runCli(
      (a) => mirrorCommand.run(a),
      [`http://127.0.0.1:${port}/tlog`, dir, "--deadline", "soon"],
    );
    // A malformed flag is a usage error (64), said on stderr before anything is fetched.
    expect(bad).toMatchObject({
      code: 64,
      out: "",
      err: 'archivist mirror: --deadline takes seconds > 0, got "soon"\n',
    });
  });
});
