import { VconError } from "./errors.js";

/** A JSON number kept as written, so `1.0` stays a float and big integers stay exact. */
export class JsonNumber {
  constructor(readonly lexeme: string) {}

  /** True when the lexeme is an integer literal (Python parses it as `int`). */
  get isInteger(): boolean {
    return !/[.eE]/.test(this.lexeme);
  }

  toNumber(): number {
    return Number(this.lexeme);
  }
}

/** A JSON value with key order (including integer-like keys) and number lexemes preserved. */
export type LosslessJson = null | boolean | string | JsonNumber | LosslessJson[] | LosslessObject;
export type LosslessObject = Map<string, LosslessJson>;

const MAX_DEPTH = 512;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new VconError("JSON_SYNTAX", `invalid JSON at offset ${this.pos}: ${what}`, {
      offset: this.pos,
    });
  }

  ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      this.pos++;
    }
  }

  value(depth: number): LosslessJson {
    if (depth > MAX_DEPTH) throw new VconError("JSON_TOO_DEEP", `JSON nested deeper than ${MAX_DEPTH}`);
    this.ws();
    const c = this.s[this.pos];
    if (c === "{") return this.object(depth);
    if (c === "[") return this.array(depth);
    if (c === '"') return this.string();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.s.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.number();
  }

  number(): JsonNumber {
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(this.s);
    if (!m) this.fail("expected a value");
    this.pos += m[0].length;
    return new JsonNumber(m[0]);
  }

  string(): string {
    this.pos++;
    let out = "";
    for (;;) {
      const start = this.pos;
      while (this.pos < this.s.length) {
        const ch = this.s.charCodeAt(this.pos);
        if (ch === 0x22 || ch === 0x5c || ch < 0x20) break;
        this.pos++;
      }
      out += this.s.slice(start, this.pos);
      const c = this.s[this.pos];
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c !== "\\") this.fail(c === undefined ? "unterminated string" : "control character in string");
      out += this.escape();
    }
  }

  escape(): string {
    const e = this.s[this.pos + 1] ?? "";
    if (e === "u") {
      const hex = this.s.slice(this.pos + 2, this.pos + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("bad \\u escape");
      this.pos += 6;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    const v = ESCAPES[e];
    if (v === undefined) this.fail("bad escape");
    this.pos += 2;
    return v;
  }

  array(depth: number): LosslessJson[] {
    this.pos++;
    const out: LosslessJson[] = [];
    this.ws();
    if (this.s[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.pos++];
      if (c === "]") return out;
      if (c !== ",") this.fail("expected , or ]");
    }
  }

  object(depth: number): LosslessObject {
    this.pos++;
    const out: LosslessObject = new Map();
    this.ws();
    if (this.s[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.pos] !== '"') this.fail("expected a key");
      const key = this.string();
      this.ws();
      if (this.s[this.pos++] !== ":") this.fail("expected :");
      // A repeated key keeps its first place and takes the last value, as a Python dict does.
      out.set(key, this.value(depth + 1));
      this.ws();
      const c = this.s[this.pos++];
      if (c === "}") return out;
      if (c !== ",") this.fail("expected , or }");
    }
  }
}

/** Parses JSON text without losing key order or number lexemes; throws VconError on bad input. */
export function parseLossless(text: string): LosslessJson {
  const p = new Parser(text);
  const v = p.value(0);
  p.ws();
  if (p.pos !== text.length) p.fail("unexpected data after the value");
  return v;
}

/** True for a lossless JSON object. */
export function isLosslessObject(v: LosslessJson | undefined): v is LosslessObject {
  return v instanceof Map;
}
