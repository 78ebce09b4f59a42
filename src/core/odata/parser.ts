import type { ODataExpr, ODataOp } from "./ast.js";
import { describe, parseError, type Token, tokenize } from "./lexer.js";
import { parseComparisonValue, resolveTarget } from "./typing.js";

const MAX_FILTER_DEPTH = 32;
const OPS: readonly string[] = ["eq", "ne", "gt", "ge", "lt", "le"];

/** Parses an OData filter of the asset-free events search into a typed AST. */
export function parseODataFilter(text: string): ODataExpr {
  const parser = new Parser(tokenize(text));
  const expr = parser.parseOr();
  parser.expectEnd();
  return expr;
}

/** Recursive descent: or > and > not > (parenthesis | lambda | comparison). */
class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseOr(): ODataExpr {
    const items = [this.parseAnd()];
    while (this.takeKeyword("or")) items.push(this.parseAnd());
    return items.length === 1 ? (items[0] as ODataExpr) : { kind: "or", items };
  }

  private parseAnd(): ODataExpr {
    const items = [this.parseUnary()];
    while (this.takeKeyword("and")) items.push(this.parseUnary());
    return items.length === 1 ? (items[0] as ODataExpr) : { kind: "and", items };
  }

  private parseUnary(): ODataExpr {
    const start = this.peek();
    if (!this.takeKeyword("not")) return this.parsePrimary();
    this.enter(start);
    const item = this.parseUnary();
    this.depth--;
    return { kind: "not", item };
  }

  private parsePrimary(): ODataExpr {
    const start = this.peek();
    if (start.kind === "(") {
      this.enter(start);
      this.index++;
      const expr = this.parseOr();
      this.expectClose("unbalanced parentheses: expected ')'");
      this.depth--;
      return expr;
    }
    const path = this.parsePath();
    if (path.length === 2 && path[0] === "trails" && path[1] === "any" && this.peek().kind === "(")
      return this.parseLambda(start);
    const target = resolveTarget(path, start.pos);
    const op = this.parseOp();
    const literal = this.next();
    return { kind: "compare", op, target, value: parseComparisonValue(target, op, literal) };
  }

  private parsePath(): string[] {
    const first = this.next();
    if (first.kind !== "word" || isKeyword(first))
      throw parseError(`expected a property name, found ${describe(first)}`, first.pos);
    const path = [first.text];
    while (this.peek().kind === "/") {
      this.index++;
      const seg = this.next();
      if (seg.kind !== "word") throw parseError(`expected a name after '/', found ${describe(seg)}`, seg.pos);
      path.push(seg.text);
    }
    return path;
  }

  private parseOp(): ODataOp {
    const t = this.next();
    const op = t.kind === "word" ? t.text.toLowerCase() : "";
    if (!OPS.includes(op))
      throw parseError(`expected a comparison operator (eq ne gt ge lt le), found ${describe(t)}`, t.pos);
    return op as ODataOp;
  }

  /** `trails/any(v: v eq 'a' or (v eq 'b'))`: only equalities joined by `or` are meaningful. */
  private parseLambda(start: Token): ODataExpr {
    this.enter(start);
    this.index++;
    const variable = this.next();
    if (variable.kind !== "word" || isKeyword(variable))
      throw parseError(`expected a lambda variable name, found ${describe(variable)}`, variable.pos);
    const colon = this.next();
    if (colon.kind !== ":") throw parseError(`expected ':' after the lambda variable`, colon.pos);
    const values = [...new Set(this.parseLambdaOr(variable.text))];
    this.expectClose(`expected ')' closing trails/any`);
    this.depth--;
    return { kind: "any", field: "trails", values };
  }

  private parseLambdaOr(variable: string): string[] {
    const values = this.parseLambdaTerm(variable);
    while (this.takeKeyword("or")) values.push(...this.parseLambdaTerm(variable));
    return values;
  }

  private parseLambdaTerm(variable: string): string[] {
    const t = this.peek();
    if (t.kind === "(") {
      this.enter(t);
      this.index++;
      const values = this.parseLambdaOr(variable);
      this.expectClose("unbalanced parentheses: expected ')'");
      this.depth--;
      return values;
    }
    const v = this.next();
    const op = this.next();
    const lit = this.next();
    const isEq = op.kind === "word" && op.text.toLowerCase() === "eq";
    if (v.kind !== "word" || v.text !== variable || !isEq || lit.kind !== "string")
      throw parseError(`inside trails/any only ${variable} eq '<trail>' joined by or is supported`, v.pos);
    return [lit.value];
  }

  expectEnd(): void {
    const t = this.peek();
    if (t.kind === ")") throw parseError("unbalanced parentheses: unexpected ')'", t.pos);
    if (t.kind !== "end")
      throw parseError(`unexpected ${describe(t)} after the end of the expression`, t.pos);
  }

  private expectClose(message: string): void {
    const t = this.next();
    if (t.kind === ")") return;
    const kw = t.kind === "word" ? t.text.toLowerCase() : "";
    if (kw === "and" || kw === "not" || OPS.includes(kw))
      throw parseError(`${message}, found ${describe(t)} (not supported here)`, t.pos);
    throw parseError(`${message}, found ${describe(t)}`, t.pos);
  }

  private enter(at: Token): void {
    if (++this.depth > MAX_FILTER_DEPTH)
      throw parseError(`nested deeper than ${MAX_FILTER_DEPTH} levels`, at.pos);
  }

  private takeKeyword(kw: string): boolean {
    const t = this.peek();
    if (t.kind !== "word" || t.text.toLowerCase() !== kw) return false;
    this.index++;
    return true;
  }

  private peek(): Token {
    return this.tokens[Math.min(this.index, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== "end") this.index++;
    return t;
  }
}

const KEYWORDS = new Set(["and", "or", "not", ...OPS]);

function isKeyword(t: Token): boolean {
  return t.kind === "word" && KEYWORDS.has(t.text.toLowerCase());
}
