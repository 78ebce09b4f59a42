import { crc32, deflateRawSync } from "node:zlib";

/** One file to put in a test archive. */
export interface ZipFile {
  name: string;
  data: Uint8Array | string;
  /** 8 deflates (the default), 0 stores. */
  method?: 0 | 8;
  /** Uncompressed size to declare instead of the true one (lying headers). */
  declaredSize?: number;
  flags?: number;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

/** The 26 bytes that local and central headers share after their signatures. */
function sharedFields(file: ZipFile, name: Buffer, data: Buffer, packed: Buffer): Buffer {
  return Buffer.concat([
    u16(20),
    u16(0x800 | (file.flags ?? 0)),
    u16(file.method ?? 8),
    u16(0),
    u16(0x21),
    u32(crc32(data)),
    u32(packed.length),
    u32(file.declaredSize ?? data.length),
    u16(name.length),
    u16(0),
  ]);
}

/** A ZIP archive of the given files, built in memory for tests. */
export function buildZip(files: ZipFile[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, "utf8");
    const data = Buffer.from(file.data);
    const packed = (file.method ?? 8) === 8 ? deflateRawSync(data) : data;
    const fields = sharedFields(file, name, data, packed);
    const local = Buffer.concat([u32(0x04034b50), fields, name, packed]);
    const tail = Buffer.concat([u16(0), u16(0), u16(0), u32(0), u32(offset)]);
    centrals.push(Buffer.concat([u32(0x02014b50), u16(20), fields, tail, name]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.concat([
    u32(0x06054b50),
    u16(0),
    u16(0),
    u16(files.length),
    u16(files.length),
    u32(directory.length),
    u32(offset),
    u16(0),
  ]);
  return Buffer.concat([...locals, directory, end]);
}
