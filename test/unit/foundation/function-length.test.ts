import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repo } from "../../helpers/import-graph.js";

// Issue 62: a long file or function hides its steps. A function longer than MAX_FUNCTION lines is
// split along its steps into named functions; a file longer than MAX_FILE lines into sibling files.
// Route tables too (issue 73): a table grows by resource, so it is split by resource, each part
// a short list of its paths.
const MAX_FUNCTION = 80;
const MAX_FILE = 400;

// "file#function" (a function) or "file" (a file's size) allowed past the limits, each with why.
const ALLOWED = new Map<string, string>([]);

interface Long {
  readonly where: string;
  readonly lines: number;
}

/** The name a reader would look a function up by: its own, or the binding or property it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name && !ts.isComputedPropertyName(node.name)) return node.name.getText(source);
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(source);
  }
  const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  return `<anonymous at line ${line}>`;
}

/** Every function of one source longer than `max` lines (its whole span, nested functions included). */
function longFunctions(file: string, text: string, max = MAX_FUNCTION): Long[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Long[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const start = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ where: `${file}#${functionName(fn, source)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every function and file of src/ past its limit and not allowed, as "where: lines". */
function overLimits(): string[] {
  const out: string[] = [];
  for (const path of sources(join(repo, "src"))) {
    const file = relative(repo, path).split("\\").join("/");
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > MAX_FILE && !ALLOWED.has(file)) out.push(`${file}: ${lines} lines`);
    for (const long of longFunctions(file, text)) {
      if (!ALLOWED.has(long.where)) out.push(`${long.where}: ${long.lines} lines`);
    }
  }
  return out;
}

describe(`functions of at most ${MAX_FUNCTION} lines, files of at most ${MAX_FILE} (issue 62)`, () => {
  it("no function or file of src/ is over its limit, except the allowed ones", () => {
    expect(overLimits()).toEqual([]);
  });

  it("the check fires on a long function, named by its binding, and not on a short one", () => {
    const body = Array.from({ length: 81 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `export const long = () => {\n${body}\n};\nexport function short() {\n  return 1;\n}\n`;
    expect(longFunctions("x.ts", text)).toEqual([{ where: "x.ts#long", lines: 83 }]);
    expect(longFunctions("x.ts", "function f() {\n  return 1;\n}\n")).toEqual([]);
  });

  it("every allowed entry still names something over its limit, so the list cannot go stale", () => {
    const seen = new Set<string>();
    for (const path of sources(join(repo, "src"))) {
      const file = relative(repo, path).split("\\").join("/");
      const text = readFileSync(path, "utf8");
      if (text.split("\n").length - 1 > MAX_FILE) seen.add(file);
      for (const long of longFunctions(file, text)) seen.add(long.where);
    }
    expect([...ALLOWED.keys()].filter((k) => !seen.has(k))).toEqual([]);
  });
});
