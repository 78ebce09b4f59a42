import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as service from "../../../src/service-entry.js";

// `vcon-archivist/service` (what the demo starts the service through) names a file the build
// makes from src/service-entry.ts, and that entry offers the configuration and the service.
const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  exports: Record<string, unknown>;
};

describe("the service entry", () => {
  it("is a package export of a module the build makes", () => {
    const built = pkg.exports["./service"];
    expect(built).toBe("./dist/src/service-entry.js");
    const source = String(built)
      .replace(/^\.\/dist\//, "")
      .replace(/\.js$/, ".ts");
    expect(existsSync(new URL(`../../../${source}`, import.meta.url))).toBe(true);
  });

  it("offers loadConfig and startService", () => {
    expect(typeof service.loadConfig).toBe("function");
    expect(typeof service.startService).toBe("function");
  });
});
