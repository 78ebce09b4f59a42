import { describe, expect, it } from "vitest";
import { scanBlob } from "../../../../src/core/blobs/scan.js";
import { sniffMimeType } from "../../../../src/core/blobs/sniff.js";
import { fixture } from "./samples.js";
import { buildZip } from "./zip-builder.js";

/** A small deterministic generator, so failures can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state;
  };
}

async function samples(): Promise<Buffer[]> {
  const names = ["sample.png", "sample.pdf", "sample.docx"];
  const files = await Promise.all(names.map(fixture));
  return [...files, buildZip([{ name: "x.zip", data: buildZip([{ name: "y", data: "z" }]) }])];
}

describe("hostile bytes", () => {
  it("every truncation of every sample scans and sniffs without throwing", async () => {
    for (const sample of await samples()) {
      for (let length = 0; length <= sample.length; length += 3) {
        const cut = sample.subarray(0, length);
        expect(["SCANNED_OK", "SCANNED_BAD"]).toContain(scanBlob(cut, "application/pdf").status);
        expect(typeof (await sniffMimeType(cut, cut))).toBe("string");
      }
    }
  });

  it("random corruption scans and sniffs without throwing", async () => {
    const next = random(42);
    for (const sample of await samples()) {
      for (let round = 0; round < 150; round++) {
        const bytes = Buffer.from(sample);
        for (let flips = 0; flips < 4; flips++) bytes[next() % bytes.length] = next() & 0xff;
        expect(["SCANNED_OK", "SCANNED_BAD"]).toContain(scanBlob(bytes, "image/png").status);
        expect(typeof (await sniffMimeType(bytes, bytes))).toBe("string");
      }
    }
  });
});
