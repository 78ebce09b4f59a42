import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { processLogger } from "../../../src/server.js";

/** What a logger writes to a stream that says it is (or is not) a terminal. */
async function written(tty: boolean): Promise<string> {
  const out = Object.assign(new PassThrough(), { isTTY: tty });
  let text = "";
  out.on("data", (b: Buffer) => {
    text += b.toString("utf8");
  });
  processLogger("info", out).info({ url: "http://127.0.0.1:8080" }, "archivist started");
  for (let i = 0; i < 50 && !text.includes("\n"); i++) await new Promise((r) => setTimeout(r, 10));
  return text;
}

// Issue 74: `npm start` printed one JSON object per line to a person's terminal.
describe("the process's logger", () => {
  it("writes readable lines to a terminal", async () => {
    const text = await written(true);
    expect(text).toMatch(/INFO/);
    expect(text).toContain("archivist started");
    expect(() => JSON.parse(text.trim())).toThrow();
  });

  it("writes one JSON object per line to anything else", async () => {
    const line = JSON.parse((await written(false)).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, service: "archivist", msg: "archivist started" });
  });
});
