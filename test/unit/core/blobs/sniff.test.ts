import { describe, expect, it } from "vitest";
import { OOXML } from "../../../../src/core/blobs/ooxml.js";
import { sniffMimeType } from "../../../../src/core/blobs/sniff.js";
import { CLEAN_SAMPLES, fixture } from "./samples.js";
import { buildZip } from "./zip-builder.js";

const contentTypes = (main: string) =>
  `<Types><Override PartName="/x.xml" ContentType="application/vnd.${main}.main+xml"/></Types>`;

describe("sniffMimeType", () => {
  it.each(CLEAN_SAMPLES)("%s is %s", async (name, mime) => {
    const bytes = await fixture(name);
    expect(await sniffMimeType(bytes, bytes)).toBe(mime);
  });

  it.each([
    ["openxmlformats-officedocument.spreadsheetml.sheet", "xl/workbook.xml", OOXML.xlsx],
    ["openxmlformats-officedocument.presentationml.presentation", "ppt/presentation.xml", OOXML.pptx],
    ["ms-word.document.macroEnabled", "word/document.xml", OOXML.docm],
  ])("reads the main part %s from [Content_Types].xml", async (main, part, mime) => {
    // The folder is deliberately ordered after the content types so only the XML decides.
    const zip = buildZip([
      { name: "[Content_Types].xml", data: contentTypes(main) },
      { name: part, data: "<x/>" },
    ]);
    expect(await sniffMimeType(zip.subarray(0, 16), zip)).toBe(mime);
  });

  it("falls back to the folder names when the content types do not say", async () => {
    const zip = buildZip([
      { name: "[Content_Types].xml", data: "<Types/>" },
      { name: "xl/workbook.xml", data: "<x/>" },
    ]);
    expect(await sniffMimeType(zip, zip)).toBe(OOXML.xlsx);
  });

  it("reads local headers when only the head of a document is given", async () => {
    const zip = buildZip([
      { name: "[Content_Types].xml", data: "<Types/>" },
      { name: "ppt/slides/slide1.xml", data: "<x/>" },
      { name: "padding.bin", data: Buffer.alloc(20_000, 7), method: 0 },
    ]);
    expect(await sniffMimeType(zip.subarray(0, 4100))).toBe(OOXML.pptx);
  });

  it("calls a plain archive application/zip, folders named word/ or not", async () => {
    const zip = buildZip([{ name: "word/notes.txt", data: "hello" }]);
    expect(await sniffMimeType(zip, zip)).toBe("application/zip");
  });

  it("tells complete JSON only from the whole content", async () => {
    const json = Buffer.from(JSON.stringify({ a: "x".repeat(100) }));
    expect(await sniffMimeType(json.subarray(0, 50))).toBe("text/plain");
    expect(await sniffMimeType(json.subarray(0, 50), json)).toBe("application/json");
    expect(await sniffMimeType(Buffer.from("42"))).toBe("text/plain");
  });

  it.each([
    ["NUL bytes", Buffer.from("text\0more")],
    ["invalid UTF-8", Buffer.from([0x68, 0xff, 0xfe, 0x69])],
    ["control bytes", Buffer.from([0x41, 0x01, 0x02, 0x42])],
    ["nothing", Buffer.alloc(0)],
  ])("answers application/octet-stream for %s", async (_, bytes) => {
    expect(await sniffMimeType(bytes)).toBe("application/octet-stream");
  });

  it("keeps a multi-byte character cut at the end of the head as text", async () => {
    const text = Buffer.from("café ☎ café");
    expect(await sniffMimeType(text.subarray(0, 8))).toBe("text/plain");
  });

  it("survives a truncated archive", async () => {
    const zip = await fixture("sample.docx");
    expect(await sniffMimeType(zip.subarray(0, 200), zip.subarray(0, 200))).toMatch(/^application\//);
  });
});
