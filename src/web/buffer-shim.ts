// The browser has no Buffer; core code uses a handful of its methods (byte/text
// conversions, compare, concat, a 64-bit write). This implements exactly those, so
// the same core modules run in the verify page. Aliased for `node:buffer` and
// injected for the global `Buffer` by scripts/build-web.mjs.

type Encoding = "utf8" | "utf-8" | "hex" | "base64url" | "base64" | "latin1";

const utf8 = new TextEncoder();

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const std = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(std + "=".repeat((4 - (std.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** A Uint8Array with the few Buffer instance methods core code calls. */
export class ShimBuffer extends Uint8Array {
  override toString(encoding: Encoding = "utf8"): string {
    switch (encoding) {
      case "hex":
        return Array.from(this, (b) => b.toString(16).padStart(2, "0")).join("");
      case "base64":
        return toBase64(this);
      case "base64url":
        return toBase64(this).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      case "latin1":
        return Array.from(this, (b) => String.fromCharCode(b)).join("");
      default:
        return new TextDecoder().decode(this);
    }
  }

  writeBigUInt64BE(value: bigint, offset = 0): number {
    new DataView(this.buffer, this.byteOffset, this.byteLength).setBigUint64(offset, value, false);
    return offset + 8;
  }
}

const wrap = (bytes: Uint8Array): ShimBuffer =>
  new ShimBuffer(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);

function fromString(text: string, encoding: Encoding): Uint8Array {
  if (encoding === "hex") {
    const out = new Uint8Array(Math.floor(text.length / 2));
    for (let i = 0; i < out.length; i++) {
      const b = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
      if (Number.isNaN(b)) return out.slice(0, i);
      out[i] = b;
    }
    return out;
  }
  if (encoding === "base64" || encoding === "base64url") return fromBase64(text);
  if (encoding === "latin1") return Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
  return utf8.encode(text);
}

/** The static Buffer API subset: from, alloc, compare, concat, byteLength, isBuffer. */
export const Buffer = {
  from(
    value: string | ArrayBufferLike | ArrayLike<number>,
    encodingOrOffset?: Encoding | number,
    length?: number,
  ): ShimBuffer {
    if (typeof value === "string") return wrap(fromString(value, (encodingOrOffset as Encoding) ?? "utf8"));
    // SharedArrayBuffer exists only on cross-origin isolated pages.
    const shared = typeof SharedArrayBuffer !== "undefined" && value instanceof SharedArrayBuffer;
    if (value instanceof ArrayBuffer || shared) {
      const offset = typeof encodingOrOffset === "number" ? encodingOrOffset : 0;
      const buffer = value as ArrayBuffer;
      return new ShimBuffer(buffer, offset, length ?? buffer.byteLength - offset);
    }
    // A copy, as Buffer.from(typedArray) copies.
    return new ShimBuffer(Array.from(value as ArrayLike<number>));
  },
  alloc(size: number): ShimBuffer {
    return new ShimBuffer(size);
  },
  compare(a: Uint8Array, b: Uint8Array): number {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = (a[i] ?? 0) - (b[i] ?? 0);
      if (d !== 0) return d < 0 ? -1 : 1;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  },
  concat(list: readonly Uint8Array[]): ShimBuffer {
    const out = new ShimBuffer(list.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of list) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  },
  byteLength(text: string): number {
    return utf8.encode(text).length;
  },
  isBuffer(value: unknown): value is ShimBuffer {
    return value instanceof ShimBuffer;
  },
};

/** node:buffer's isUtf8, with a fatal TextDecoder. */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
