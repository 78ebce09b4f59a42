import { QueryError } from "../../errors/query-error.js";
import { unstorableIndex } from "../filters/text-guard.js";

/** One lexical unit; `pos` is the 1-based character (code point) position of its start. */
export type Token =
  | { kind: "word"; text: string; pos: number }
  | { kind: "string"; value: string; pos: number }
  | { kind: "integer"; digits: string; pos: number }
  | { kind: "(" | ")" | "/" | ":" | "end"; pos: number };

const MAX_FILTER_LENGTH = 4096;

const WORD_START = /[\p{L}_]/u;
const WORD_PART = /[\p{L}\p{N}_.-]/u;
const SPACE = /[ \t\r\n]/;
const PUNCT = new Set(["(", ")", "/", ":"]);

/** Refused input, with its 1-based position in the message. */
export function parseError(message: string, pos: number): QueryError {
  return new QueryError("ODATA_PARSE", `invalid filter at position ${pos}: ${message}`, pos);
}

/** Splits a filter into tokens, refusing over-long or unstorable text. */
export function tokenize(text: string): Token[] {
  // Checked on UTF-16 length first so a huge string is refused before it is copied.
  if (text.length > MAX_FILTER_LENGTH * 2) throw parseError(`longer than ${MAX_FILTER_LENGTH} characters`, 1);
  const chars = Array.from(text);
  if (chars.length > MAX_FILTER_LENGTH)
    throw parseError(`longer than ${MAX_FILTER_LENGTH} characters`, MAX_FILTER_LENGTH + 1);
  const bad = unstorableIndex(text);
  if (bad >= 0)
    throw parseError("NUL character or unpaired surrogate", Array.from(text.slice(0, bad)).length + 1);
  const tokens: Token[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i] ?? "";
    if (SPACE.test(c)) i++;
    else if (PUNCT.has(c)) tokens.push({ kind: c as "(" | ")" | "/" | ":", pos: ++i });
    else i = lexValue(chars, i, tokens);
  }
  tokens.push({ kind: "end", pos: chars.length + 1 });
  return tokens;
}

function lexValue(chars: string[], i: number, tokens: Token[]): number {
  const c = chars[i] ?? "";
  if (c === "'") return lexString(chars, i, tokens);
  if (c === "-" || (c >= "0" && c <= "9")) return lexInteger(chars, i, tokens);
  if (WORD_START.test(c)) {
    let j = i + 1;
    while (j < chars.length && WORD_PART.test(chars[j] ?? "")) j++;
    tokens.push({ kind: "word", text: chars.slice(i, j).join(""), pos: i + 1 });
    return j;
  }
  throw parseError(`unexpected character ${JSON.stringify(c)}`, i + 1);
}

function lexString(chars: string[], start: number, tokens: Token[]): number {
  let value = "";
  let i = start + 1;
  for (;;) {
    if (i >= chars.length) throw parseError("unterminated string literal", start + 1);
    const c = chars[i] ?? "";
    if (c === "'" && chars[i + 1] === "'") {
      value += "'";
      i += 2;
    } else if (c === "'") {
      tokens.push({ kind: "string", value, pos: start + 1 });
      return i + 1;
    } else {
      value += c;
      i++;
    }
  }
}

function lexInteger(chars: string[], start: number, tokens: Token[]): number {
  let j = chars[start] === "-" ? start + 1 : start;
  const digitsFrom = j;
  while (j < chars.length && (chars[j] ?? "") >= "0" && (chars[j] ?? "") <= "9") j++;
  if (j === digitsFrom) throw parseError("expected digits after '-'", start + 1);
  const next = chars[j] ?? "";
  if (next === "." || WORD_PART.test(next))
    throw parseError("malformed number (only integers are supported)", start + 1);
  tokens.push({ kind: "integer", digits: chars.slice(start, j).join(""), pos: start + 1 });
  return j;
}

/** A token as the error message names it. */
export function describe(t: Token): string {
  switch (t.kind) {
    case "word":
      return `'${t.text}'`;
    case "string":
      return "a string literal";
    case "integer":
      return `the number ${t.digits}`;
    case "end":
      return "the end of the filter";
    default:
      return `'${t.kind}'`;
  }
}
