import { compareCodePoints, jsonbText } from "../../src/core/filters/jsonb-text.js";

/**
 * A tiny interpreter for exactly the SQL our query compilers emit, with PostgreSQL's
 * three-valued logic, so compiled SQL can be checked against the in-memory evaluators
 * without a database. Its tokenizer accepts no string literal but '' and no identifier it
 * is not told about, so any input text spliced into the SQL makes it throw.
 */
type Value = string | bigint | boolean | null | readonly unknown[] | Collated | Json;
interface Collated {
  collated: string;
}
interface Json {
  json: Readonly<Record<string, unknown>>;
}

const KEYWORDS = new Set(["AND", "OR", "NOT", "IS", "NULL", "DISTINCT", "FROM", "ANY", "ARRAY", "COLLATE"]);
const TOKEN = /\s*(->>|::|<>|>=|<=|&&|[()[\],=<>]|\$\d+|''|"C"|[A-Za-z_][A-Za-z0-9_.]*)/y;

function tokenize(sql: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < sql.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(sql);
    if (!m) {
      if (/^\s*$/.test(sql.slice(at))) break;
      throw new Error(`mini-sql: unexpected text at ${at}: ${sql.slice(at, at + 20)}`);
    }
    out.push(m[1] as string);
  }
  return out;
}

/** Evaluates a WHERE fragment for one row; NULL counts as false, as in a WHERE clause. */
export function runSql(
  sql: string,
  params: readonly unknown[],
  firstParam: number,
  row: Readonly<Record<string, unknown>>,
): boolean {
  const m = new MiniSql(tokenize(sql), params, firstParam, row);
  const result = m.or();
  m.end();
  if (result !== null && typeof result !== "boolean") throw new Error("mini-sql: not a condition");
  return result === true;
}

class MiniSql {
  private i = 0;

  constructor(
    private readonly tokens: string[],
    private readonly params: readonly unknown[],
    private readonly firstParam: number,
    private readonly row: Readonly<Record<string, unknown>>,
  ) {}

  end(): void {
    if (this.i !== this.tokens.length)
      throw new Error(`mini-sql: trailing tokens from ${this.tokens[this.i]}`);
  }

  private peek(): string | undefined {
    return this.tokens[this.i];
  }

  private take(t?: string): string {
    const tok = this.tokens[this.i++];
    if (tok === undefined || (t !== undefined && tok !== t))
      throw new Error(`mini-sql: expected ${t} got ${tok}`);
    return tok;
  }

  or(): Value {
    let v = this.and();
    while (this.peek() === "OR") {
      this.take();
      const r = this.and();
      v = v === true || r === true ? true : v === null || r === null ? null : false;
    }
    return v;
  }

  private and(): Value {
    let v = this.not();
    while (this.peek() === "AND") {
      this.take();
      const r = this.not();
      v = v === false || r === false ? false : v === null || r === null ? null : true;
    }
    return v;
  }

  private not(): Value {
    if (this.peek() !== "NOT") return this.cmp();
    this.take();
    const v = this.not();
    return v === null ? null : !v;
  }

  private cmp(): Value {
    const left = this.postfix();
    const op = this.peek();
    if (op === "IS") return this.isExpr(left);
    if (op === undefined || !["=", "<>", "<", ">", "<=", ">=", "&&"].includes(op)) return left;
    this.take();
    if (op !== "=" || this.peek() !== "ANY") return compare(op, left, this.postfix());
    this.take();
    this.take("(");
    const arr = this.or();
    this.take(")");
    return anyOf(left, arr);
  }

  private isExpr(left: Value): Value {
    this.take("IS");
    if (this.peek() === "DISTINCT") {
      this.take();
      this.take("FROM");
      return plain(left) !== plain(this.postfix());
    }
    const negate = this.peek() === "NOT";
    if (negate) this.take();
    this.take("NULL");
    return negate ? left !== null : left === null;
  }

  private postfix(): Value {
    let v = this.primary();
    for (;;) {
      const t = this.peek();
      if (t === "->>") {
        this.take();
        const key = this.postfix();
        v = v === null || key === null ? null : field(v, key);
      } else if (t === "::") {
        this.take();
        const type = this.take();
        const array = this.peek() === "[";
        if (array) {
          this.take("[");
          this.take("]");
        }
        v = cast(v, type, array);
      } else if (t === "COLLATE") {
        this.take();
        this.take('"C"');
        v = typeof v === "string" ? { collated: v } : v;
      } else return v;
    }
  }

  private primary(): Value {
    const t = this.take();
    if (t === "(") {
      const v = this.or();
      this.take(")");
      return v;
    }
    if (t.startsWith("$")) return this.param(Number(t.slice(1)));
    if (t === "''") return "";
    if (t === "true" || t === "false") return t === "true";
    if (t === "coalesce") return this.coalesce();
    if (t === "ARRAY") return this.array();
    return this.column(t);
  }

  private coalesce(): Value {
    this.take("(");
    const a = this.or();
    this.take(",");
    const b = this.or();
    this.take(")");
    return a === null ? b : a;
  }

  private array(): Value {
    this.take("[");
    const items: Value[] = [this.postfix()];
    while (this.peek() === ",") {
      this.take();
      items.push(this.postfix());
    }
    this.take("]");
    return items;
  }

  private column(name: string): Value {
    if (KEYWORDS.has(name) || !Object.hasOwn(this.row, name))
      throw new Error(`mini-sql: unknown identifier ${name}`);
    const col = this.row[name];
    if (col === null || col === undefined) return null;
    if (typeof col === "object" && !Array.isArray(col)) return { json: col as Record<string, unknown> };
    return col as Value;
  }

  private param(n: number): Value {
    const index = n - this.firstParam;
    if (index < 0 || index >= this.params.length) throw new Error(`mini-sql: no parameter $${n}`);
    return this.params[index] as Value;
  }
}

function field(v: Value, key: Value): Value {
  if (v === null || typeof v !== "object" || !("json" in v) || typeof key !== "string")
    throw new Error("mini-sql: bad ->>");
  return Object.hasOwn(v.json, key) ? jsonbText(v.json[key]) : null;
}

function cast(v: Value, type: string, array: boolean): Value {
  if (v === null) return null;
  if (array) {
    if (type !== "text" || !Array.isArray(v)) throw new Error("mini-sql: bad array cast");
    return v;
  }
  if (type === "text") {
    if (typeof v !== "string") throw new Error("mini-sql: text cast of a non-string");
    return v;
  }
  if (type === "bigint") return BigInt(v as string);
  throw new Error(`mini-sql: unknown type ${type}`);
}

function plain(v: Value): string | bigint | boolean | null | readonly unknown[] {
  if (v !== null && typeof v === "object" && "collated" in v) return v.collated;
  return v as string | bigint | boolean | null | readonly unknown[];
}

function anyOf(left: Value, arr: Value): Value {
  const l = plain(left);
  if (l === null || arr === null) return null;
  return (arr as readonly unknown[]).includes(l);
}

function compare(op: string, a: Value, b: Value): Value {
  const x = plain(a);
  const y = plain(b);
  if (x === null || y === null) return null;
  if (op === "&&") return (x as readonly unknown[]).some((v) => (y as readonly unknown[]).includes(v));
  if (typeof x !== typeof y) throw new Error(`mini-sql: comparing ${typeof x} with ${typeof y}`);
  const collated =
    (a !== null && typeof a === "object" && "collated" in a) ||
    (b !== null && typeof b === "object" && "collated" in b);
  if (typeof x === "string" && op !== "=" && op !== "<>" && !collated)
    throw new Error('mini-sql: text ordering without COLLATE "C"');
  const order =
    typeof x === "string" ? compareCodePoints(x, y as string) : compareBigints(x as bigint, y as bigint);
  switch (op) {
    case "=":
      return order === 0;
    case "<>":
      return order !== 0;
    case "<":
      return order < 0;
    case ">":
      return order > 0;
    case "<=":
      return order <= 0;
    default:
      return order >= 0;
  }
}

function compareBigints(x: bigint, y: bigint): number {
  if (x === y) return 0;
  return x < y ? -1 : 1;
}
