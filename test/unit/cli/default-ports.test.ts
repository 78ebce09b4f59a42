import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { WEBHOOK_DEFAULT_PORT } from "../../../plugins/conserver/config/webhook-section.js";
import { WITNESS_DEFAULT_PORT, witnessCommand } from "../../../src/cli/witness.js";

const read = (name: string) => readFileSync(new URL(`../../../${name}`, import.meta.url), "utf8");

// Issue 50: the witness and the conserver webhook both listened on 8090 by default, and the README
// keeps its witness running, so `conserver run` then failed with EADDRINUSE.
describe("the witness and the conserver webhook listen on distinct default ports", () => {
  it("by default, as documented", () => {
    expect(WITNESS_DEFAULT_PORT).not.toBe(WEBHOOK_DEFAULT_PORT);
    expect(witnessCommand.usage).toContain(`(default ${WITNESS_DEFAULT_PORT})`);
    expect(read("docs/transparency-log.md")).toContain(
      `127.0.0.1:${WITNESS_DEFAULT_PORT} unless told otherwise`,
    );
  });

  it("in the README's witness and the example conserver config it runs beside", () => {
    const readme = read("README.md");
    const witness = /archivist -- witness .*--port (\d+)/.exec(readme)?.[1];
    const webhook = /listen: "127\.0\.0\.1:\$\{CONSERVER_WEBHOOK_PORT:-(\d+)\}"/.exec(
      read("conserver.example.yml"),
    )?.[1];
    expect(Number(witness)).toBe(WITNESS_DEFAULT_PORT);
    expect(Number(webhook)).toBe(WEBHOOK_DEFAULT_PORT);
    expect(readme).toContain(`CONSERVER_WEBHOOK_PORT:-${WEBHOOK_DEFAULT_PORT}`);
  });
});
