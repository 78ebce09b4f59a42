import { describe, expect, it } from "vitest";
import { BlobFormatError } from "../../../../src/core/blobs/blob-format-error.js";
import { readZipDirectory } from "../../../../src/core/blobs/zip-directory.js";
import { buildZip } from "./zip-builder.js";

/** A one-entry stored archive written the ZIP64 way: saturated fields, extra field, ZIP64 end records. */
function zip64(): Buffer {
  const data = Buffer.from("zip64 body");
  const name = Buffer.from("big.txt");
  const extra = Buffer.alloc(4 + 24);
  extra.writeUInt16LE(1, 0);
  extra.writeUInt16LE(24, 2);
  extra.writeBigUInt64LE(BigInt(data.length), 4);
  extra.writeBigUInt64LE(BigInt(data.length), 12);
  extra.writeBigUInt64LE(0n, 20);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt32LE(0xffffffff, 20);
  central.writeUInt32LE(0xffffffff, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt16LE(extra.length, 30);
  central.writeUInt32LE(0xffffffff, 42);
  const directory = Buffer.concat([central, name, extra]);
  const directoryOffset = local.length + name.length + data.length;
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(1n, 24);
  record.writeBigUInt64LE(1n, 32);
  record.writeBigUInt64LE(BigInt(directory.length), 40);
  record.writeBigUInt64LE(BigInt(directoryOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(directoryOffset + directory.length), 8);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.fill(0xff, 8, 20);
  return Buffer.concat([local, name, data, directory, record, locator, end]);
}

describe("readZipDirectory", () => {
  it("lists entries with their sizes and offsets", () => {
    const zip = buildZip([
      { name: "a.txt", data: "aaaa", method: 0 },
      { name: "dir/b.txt", data: "b".repeat(1000) },
    ]);
    const entries = readZipDirectory(zip);
    expect(entries.map((e) => [e.name, e.method, e.uncompressedSize, e.localOffset])).toEqual([
      ["a.txt", 0, 4, 0],
      ["dir/b.txt", 8, 1000, 30 + 5 + 4],
    ]);
  });

  it("reads an empty archive", () => {
    expect(readZipDirectory(buildZip([]))).toEqual([]);
  });

  it("finds the end record behind an archive comment", () => {
    const zip = buildZip([{ name: "a", data: "x" }]);
    const comment = Buffer.from("a comment");
    zip.writeUInt16LE(comment.length, zip.length - 2);
    expect(readZipDirectory(Buffer.concat([zip, comment]))).toHaveLength(1);
  });

  it("reads ZIP64 end records and extra fields", () => {
    const [entry] = readZipDirectory(zip64());
    expect(entry).toMatchObject({
      name: "big.txt",
      uncompressedSize: 10,
      compressedSize: 10,
      localOffset: 0,
    });
  });

  it.each([
    ["too short", Buffer.from("PK")],
    ["no end record", Buffer.alloc(100)],
    ["truncated", buildZip([{ name: "a", data: "x" }]).subarray(0, 40)],
  ])("throws a typed error when %s", (_, bytes) => {
    expect(() => readZipDirectory(bytes)).toThrow(BlobFormatError);
  });

  it("refuses a directory that points past itself", () => {
    const zip = buildZip([{ name: "a", data: "x" }]);
    zip.writeUInt32LE(zip.length, zip.length - 6);
    expect(() => readZipDirectory(zip)).toThrow(/truncated central directory/);
  });
});
