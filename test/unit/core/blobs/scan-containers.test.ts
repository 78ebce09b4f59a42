import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { OOXML } from "../../../../src/core/blobs/ooxml.js";
import { scanBlob } from "../../../../src/core/blobs/scan.js";
import { DEFAULT_SCAN_LIMITS } from "../../../../src/core/blobs/scan-limits.js";
import { EICAR, fixture } from "./samples.js";
import { buildZip } from "./zip-builder.js";

const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0]);
const docxParts = [
  { name: "[Content_Types].xml", data: "<Types/>" },
  { name: "word/document.xml", data: "<w:document/>" },
];

/** A ZIP nested `levels` times around a text file. */
function nested(levels: number): Buffer {
  let inner = buildZip([{ name: "core.txt", data: "hello" }]);
  for (let i = 1; i < levels; i++) inner = buildZip([{ name: `level${i}.zip`, data: inner, method: 0 }]);
  return inner;
}

describe("scanBlob: inside ZIP archives", () => {
  it("finds EICAR in an entry", () => {
    const zip = buildZip([
      { name: "readme.txt", data: "hi" },
      { name: "eicar.com", data: EICAR },
    ]);
    expect(scanBlob(zip, "application/zip")).toEqual({
      status: "SCANNED_BAD",
      reason: "EICAR test file in ZIP entry eicar.com",
    });
  });

  it("finds EICAR in a nested archive", () => {
    const inner = buildZip([{ name: "eicar.txt", data: EICAR }]);
    const zip = buildZip([{ name: "inner.zip", data: inner }]);
    expect(scanBlob(zip, "application/zip").reason).toBe(
      "EICAR test file in ZIP entry eicar.txt (in inner.zip)",
    );
  });

  it("finds an executable inside a document", () => {
    const zip = buildZip([...docxParts, { name: "word/media/image1.png", data: ELF }]);
    expect(scanBlob(zip, OOXML.docx)).toEqual({
      status: "SCANNED_BAD",
      reason: "ELF executable hidden in document: word/media/image1.png",
    });
  });

  it("finds an entry named to run inside a document", () => {
    const zip = buildZip([...docxParts, { name: "word/embeddings/setup.EXE", data: "x" }]);
    expect(scanBlob(zip, OOXML.docx).reason).toBe("executable hidden in document: word/embeddings/setup.EXE");
  });

  it("lets a plain archive carry executables", () => {
    const zip = buildZip([
      { name: "tool", data: ELF },
      { name: "setup.exe", data: "x" },
    ]);
    expect(scanBlob(zip, "application/zip").status).toBe("SCANNED_OK");
  });

  it("allows nesting up to the limit and no deeper", () => {
    expect(scanBlob(nested(DEFAULT_SCAN_LIMITS.maxZipDepth + 1), "application/zip").status).toBe(
      "SCANNED_OK",
    );
    expect(scanBlob(nested(DEFAULT_SCAN_LIMITS.maxZipDepth + 2), "application/zip").reason).toMatch(
      /^archive bomb: ZIP nested more than 3 deep/,
    );
  });

  it("skips encrypted entries rather than failing them", () => {
    const zip = buildZip([{ name: "secret.bin", data: "xxxx", method: 0, flags: 1 }]);
    expect(scanBlob(zip, "application/zip").status).toBe("SCANNED_OK");
  });
});

describe("scanBlob: archive bombs", () => {
  const zeros = Buffer.alloc(20 << 20);

  it("refuses a ZIP whose compression ratio is too high", () => {
    const zip = buildZip([{ name: "zeros.bin", data: zeros }]);
    expect(zip.length).toBeLessThan(40_000);
    expect(scanBlob(zip, "application/zip").reason).toMatch(
      /^archive bomb: compression ratio \d+:1, more than 100:1$/,
    );
  });

  it("refuses a ZIP that declares too much", () => {
    const zip = buildZip([{ name: "a", data: "x", method: 0, declaredSize: 0x7fffffff }]);
    const limits = { ...DEFAULT_SCAN_LIMITS, maxUncompressedBytes: 1 << 20 };
    expect(scanBlob(zip, "application/zip", limits).reason).toBe(
      "archive bomb: expands to more than 1048576 bytes",
    );
  });

  it("refuses an entry that inflates beyond its declared size", () => {
    const zip = buildZip([{ name: "liar.bin", data: Buffer.alloc(1 << 20), declaredSize: 100 }]);
    expect(scanBlob(zip, "application/zip").reason).toBe(
      "archive bomb: entry liar.bin inflates beyond its declared size",
    );
  });

  it("refuses too many entries", () => {
    const files = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, data: "" }));
    const limits = { ...DEFAULT_SCAN_LIMITS, maxZipEntries: 10 };
    expect(scanBlob(buildZip(files), "application/zip", limits).reason).toBe(
      "archive bomb: 11 ZIP entries, more than 10",
    );
    expect(scanBlob(buildZip(files.slice(1)), "application/zip", limits).status).toBe("SCANNED_OK");
  });

  it("refuses a gzip that expands too far, and passes an ordinary one", () => {
    expect(scanBlob(gzipSync(zeros), "application/gzip").reason).toMatch(
      /^archive bomb: gzip expands to more than/,
    );
    expect(scanBlob(gzipSync(Buffer.from("hello ".repeat(1000))), "application/gzip").status).toBe(
      "SCANNED_OK",
    );
  });

  it("refuses a bomb nested inside a ZIP", () => {
    const zip = buildZip([{ name: "data.gz", data: gzipSync(zeros), method: 0 }]);
    expect(scanBlob(zip, "application/zip").reason).toMatch(/^archive bomb: gzip expands/);
  });
});

describe("scanBlob: malformed containers", () => {
  it("refuses a ZIP cut short", async () => {
    const docx = await fixture("sample.docx");
    expect(scanBlob(docx.subarray(0, docx.length - 30), OOXML.docx).reason).toBe(
      "malformed ZIP: no end of central directory (truncated ZIP)",
    );
  });

  it("refuses a ZIP whose central directory is cut", async () => {
    const docx = Buffer.from(await fixture("sample.docx"));
    docx.writeUInt16LE(9, docx.length - 12); // claims more entries than the directory holds
    expect(scanBlob(docx, OOXML.docx).reason).toBe("malformed ZIP: truncated central directory");
  });

  it("refuses a ZIP entry that does not inflate", () => {
    const zip = buildZip([{ name: "a.txt", data: "hello hello hello" }]);
    const broken = Buffer.from(zip);
    broken.fill(0xff, 30 + 5, 30 + 9); // corrupt the deflate stream after the name
    expect(scanBlob(broken, "application/zip").reason).toBe("malformed ZIP: entry a.txt does not inflate");
  });

  it("refuses a PNG with a bad CRC", async () => {
    const png = Buffer.from(await fixture("sample.png"));
    png[20] = (png[20] ?? 0) ^ 0xff; // inside IHDR
    expect(scanBlob(png, "image/png").reason).toBe("malformed PNG: IHDR chunk has a bad CRC");
  });

  it("refuses a PNG without IEND", async () => {
    const png = await fixture("sample.png");
    expect(scanBlob(png.subarray(0, png.length - 12), "image/png").reason).toBe(
      "malformed PNG: no IEND chunk (truncated)",
    );
    expect(scanBlob(png.subarray(0, png.length - 20), "image/png").reason).toMatch(
      /^malformed PNG: truncated IDAT/,
    );
  });

  it("refuses a PDF without %%EOF", async () => {
    const pdf = await fixture("sample.pdf");
    expect(scanBlob(pdf.subarray(0, pdf.length - 7), "application/pdf").reason).toBe(
      "malformed PDF: no %%EOF (truncated)",
    );
  });

  it("refuses a truncated gzip", () => {
    const gz = gzipSync(Buffer.from("hello world ".repeat(50)));
    expect(scanBlob(gz.subarray(0, gz.length - 10), "application/gzip").reason).toBe(
      "malformed gzip: does not decompress",
    );
  });
});
