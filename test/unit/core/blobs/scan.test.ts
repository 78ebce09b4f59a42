import { describe, expect, it } from "vitest";
import { OOXML } from "../../../../src/core/blobs/ooxml.js";
import { scanBlob } from "../../../../src/core/blobs/scan.js";
import { CLEAN_SAMPLES, EICAR, fixture } from "./samples.js";

const PE = (() => {
  const bytes = Buffer.alloc(0x100);
  bytes.write("MZ", 0, "latin1");
  bytes.writeUInt32LE(0x80, 0x3c);
  bytes.write("PE\0\0", 0x80, "latin1");
  return bytes;
})();
const ELF = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0]);
const MACH_O = Buffer.from([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1]);
const FAT_MACH_O = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2]);
const JAVA_CLASS = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52]);
const SCRIPT = Buffer.from("#!/bin/sh\nrm -rf ~\n");

describe("scanBlob: clean files", () => {
  it.each(CLEAN_SAMPLES)("%s passes", async (name, mime) => {
    expect(scanBlob(await fixture(name), mime)).toEqual({ status: "SCANNED_OK", reason: "no threat found" });
  });
});

describe("scanBlob: EICAR", () => {
  it("finds the test file itself", () => {
    expect(scanBlob(Buffer.from(EICAR), "text/plain")).toEqual({
      status: "SCANNED_BAD",
      reason: "EICAR test file",
    });
  });

  it("finds it within the first 4 KB", () => {
    const bytes = Buffer.concat([Buffer.alloc(4000, 0x20), Buffer.from(EICAR)]);
    expect(scanBlob(bytes, "application/octet-stream").status).toBe("SCANNED_BAD");
  });

  it("does not look past the first 4 KB", () => {
    const bytes = Buffer.concat([Buffer.alloc(4096, 0x20), Buffer.from(EICAR)]);
    expect(scanBlob(bytes, "application/octet-stream").status).toBe("SCANNED_OK");
  });

  it("does not flag a damaged string", () => {
    expect(scanBlob(Buffer.from(EICAR.replace("H+H", "H-H")), "text/plain").status).toBe("SCANNED_OK");
  });
});

describe("scanBlob: disguised executables", () => {
  it.each([
    ["PE", PE, "image/png"],
    ["ELF", ELF, "application/pdf"],
    ["Mach-O", MACH_O, OOXML.docx],
    ["Mach-O", FAT_MACH_O, "image/jpeg"],
    ["PE", PE, "text/plain; charset=utf-8"],
    ["script", SCRIPT, "image/gif"],
    ["script", SCRIPT, "application/json"],
  ])("a %s executable declared as %s is bad", (kind, bytes, mime) => {
    expect(scanBlob(bytes, mime)).toEqual({
      status: "SCANNED_BAD",
      reason: `${kind} executable disguised as ${mime}`,
    });
  });

  it.each([
    ["an honest PE", PE, "application/vnd.microsoft.portable-executable"],
    ["an ELF as octet-stream", ELF, "application/octet-stream"],
    ["a script as text", SCRIPT, "text/x-shellscript"],
    ["a script as plain text", SCRIPT, "text/plain"],
    ["a Java class", JAVA_CLASS, "image/png"],
    [
      "text starting with MZ",
      Buffer.from("MZ Holdings quarterly report, all text and long enough to pass 64 bytes."),
      "text/plain",
    ],
  ])("%s is fine", (_, bytes, mime) => {
    expect(scanBlob(bytes, mime).status).toBe("SCANNED_OK");
  });
});
