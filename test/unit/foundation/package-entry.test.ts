import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as lib from "../../../src/index.js";

// package.json's `main`, `types` and `exports` name files the build writes from src/index.ts
// (dist/src/index.js pointed at nothing before), and the entry offers the offline verifiers.
const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  main: string;
  types: string;
  exports: Record<string, { types: string; default: string } | string>;
};
const source = (built: string) =>
  new URL(
    `../../../${built
      .replace(/^\.\//, "")
      .replace(/^dist\//, "")
      .replace(/\.(d\.ts|js)$/, ".ts")}`,
    import.meta.url,
  );

describe("the package entry", () => {
  it("names a module the build makes, and exports the verifiers", () => {
    for (const built of [pkg.main, pkg.types, (pkg.exports["."] as { default: string }).default])
      expect(existsSync(source(built)), built).toBe(true);
    for (const name of [
      "verifyRecordReceipt",
      "verifyStatement",
      "verifyBundle",
      "verifyCheckpoint",
      "keysFromKeySet",
    ])
      expect(typeof (lib as Record<string, unknown>)[name], name).toBe("function");
  });
});
