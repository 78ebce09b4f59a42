import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * The import graph of the sources and the layer rules it is held to (scripts/layers.json, the one
 * rule book: docs/architecture.md's table is generated from it and biome.json's room rules are
 * checked against it). Every import counts, type-only ones too: a type is an arrow as much as a
 * value is.
 */

export interface Room {
  name: string;
  /** Folders (ending in `/`) or files, from the repository's root. */
  paths: string[];
  holds: string;
  /** Rooms whose files this room's files may import (its own always), or single files by path. */
  mayImport: string[];
  /** When present, the only packages its files may import (`@noble/*` style globs). */
  packages?: string[];
  /** When present, the only files of the room that files of other rooms may import. */
  entries?: string[];
}

export interface RuleBook {
  rooms: Room[];
  /** Package entries other code reaches through their package name (`vcon-archivist/client`). */
  aliases: Record<string, string>;
}

interface Edge {
  from: string;
  to: string;
  /** An `import()` call: the file is read when that call runs, not when `from` is loaded. */
  lazy?: true;
}

export interface Graph {
  files: string[];
  /** Imports of a file of ours: repository-relative paths. */
  internal: Edge[];
  /** Imports of a package (`from` imports the package named `to`). */
  external: Edge[];
}

export const repo = resolve(import.meta.dirname, "../..");

export function loadRules(root = repo): RuleBook {
  return JSON.parse(readFileSync(join(root, "scripts/layers.json"), "utf8")) as RuleBook;
}

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
}

const posix = (p: string) => p.split(sep).join("/");

function resolveSpec(root: string, fromFile: string, spec: string, aliases: Record<string, string>) {
  if (aliases[spec]) return aliases[spec];
  if (!spec.startsWith(".")) return undefined;
  const base = resolve(dirname(join(root, fromFile)), spec);
  for (const candidate of [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    base,
    `${base}.ts`,
    join(base, "index.ts"),
  ]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return posix(relative(root, candidate));
  }
  return posix(relative(root, base));
}

/** The package a bare specifier names: `@noble/hashes/sha2.js` → `@noble/hashes`. */
function packageOf(spec: string): string {
  if (spec.startsWith("node:")) return spec;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The specifiers a file names only in `import()` calls, never in an import or export declaration
 * (preProcessFile lists both alike).
 */
function lazySpecifiers(path: string, text: string): Set<string> {
  const lazy = new Set<string>();
  if (!text.includes("import(")) return lazy;
  const eager = new Set<string>();
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      eager.add((node.moduleSpecifier as ts.StringLiteral).text);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      lazy.add(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest));
  for (const spec of eager) lazy.delete(spec);
  return lazy;
}

/** Every import of every TypeScript file under `folders` (repository-relative). */
export function importGraph(folders: string[], root = repo, rules = loadRules(root)): Graph {
  const files: string[] = [];
  for (const folder of folders) if (existsSync(join(root, folder))) walk(join(root, folder), files);
  const graph: Graph = { files: files.map((f) => posix(relative(root, f))), internal: [], external: [] };
  for (const from of graph.files) {
    const text = readFileSync(join(root, from), "utf8");
    const lazy = lazySpecifiers(from, text);
    for (const { fileName: spec } of ts.preProcessFile(text, true, true).importedFiles) {
      const to = resolveSpec(root, from, spec, rules.aliases);
      const edge = to ? { from, to } : { from, to: packageOf(spec) };
      if (lazy.has(spec)) Object.assign(edge, { lazy: true });
      (to ? graph.internal : graph.external).push(edge);
    }
  }
  return graph;
}

/** The room a file lies in: the rule whose path is the longest prefix of it. */
export function roomOf(rules: RuleBook, file: string): Room | undefined {
  let best: { room: Room; length: number } | undefined;
  for (const room of rules.rooms) {
    for (const p of room.paths) {
      const hit = p.endsWith("/") ? file.startsWith(p) : file === p;
      if (hit && (!best || p.length > best.length)) best = { room, length: p.length };
    }
  }
  return best?.room;
}

const globMatch = (glob: string, name: string) =>
  glob.endsWith("*") ? name.startsWith(glob.slice(0, -1)) : name === glob;

/** Every import the rule book does not allow, as `from → to (rule)` lines. */
export function violations(rules: RuleBook, graph: Graph): string[] {
  const out = graph.files
    .filter((f) => !roomOf(rules, f))
    .map((f) => `${f}: in no room of scripts/layers.json`);
  for (const { from, to } of graph.internal) {
    const a = roomOf(rules, from);
    const b = roomOf(rules, to);
    if (!a) continue;
    if (!b) out.push(`${from} → ${to}: ${to} is in no room of scripts/layers.json`);
    else if (a !== b && !a.mayImport.includes(b.name) && !a.mayImport.includes(to))
      out.push(`${from} → ${to}: ${a.name} may not import ${b.name}`);
    else if (a !== b && b.entries && !b.entries.includes(to))
      out.push(`${from} → ${to}: ${b.name} is entered only through ${b.entries.join(", ")}`);
  }
  for (const { from, to } of graph.external) {
    const a = roomOf(rules, from);
    if (a?.packages && !a.packages.some((g) => globMatch(g, to)))
      out.push(`${from} → ${to}: ${a.name} imports only ${a.packages.join(", ")}`);
  }
  return [...new Set(out)];
}

/** Each strongly connected set of two nodes or more (Tarjan's algorithm), sorted. */
function circles(arrows: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of arrows.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of arrows.keys()) if (!indices.has(v)) visit(v);
  return found;
}

/** The circles between rooms: each strongly connected set of two rooms or more, sorted. */
export function roomCircles(rules: RuleBook, graph: Graph): string[][] {
  const arrows = new Map<string, Set<string>>();
  for (const { from, to } of graph.internal) {
    const a = roomOf(rules, from)?.name;
    const b = roomOf(rules, to)?.name;
    if (!a || !b || a === b) continue;
    if (!arrows.has(a)) arrows.set(a, new Set());
    arrows.get(a)!.add(b);
  }
  return circles(arrows);
}

/** The circles between files: each set of two files or more that import each other, round, sorted. */
export function fileCircles(graph: Graph): string[][] {
  const arrows = new Map<string, Set<string>>();
  for (const { from, to } of graph.internal) {
    if (!arrows.has(from)) arrows.set(from, new Set());
    arrows.get(from)!.add(to);
  }
  return circles(arrows);
}

/** The "may import" cell of a room in docs/architecture.md's table, made from the rule book. */
function mayImportCell(rules: RuleBook, room: Room): string {
  const names = room.mayImport.map((n) => {
    if (n.includes("/")) return `\`${n}\``;
    const other = rules.rooms.find((r) => r.name === n);
    if (!other) throw new Error(`${room.name} may import ${n}, which is no room`);
    return other.paths.map((p) => `\`${p}\``).join(", ");
  });
  const ours = names.length ? names.join("; ") : "nothing of ours";
  if (!room.packages) return ours;
  if (room.packages.length === 0) return `${ours}; no package`;
  return `${ours}; packages: ${room.packages.map((p) => `\`${p}\``).join(", ")} only`;
}

/** The table's rows, one per room, as docs/architecture.md holds them. */
export function layerTable(rules: RuleBook): string {
  const rows = rules.rooms.map(
    (room) =>
      `| ${room.paths.map((p) => `\`${p}\``).join(", ")} | ${room.holds} | ${mayImportCell(rules, room)} |`,
  );
  return ["| room | holds | may import |", "|---|---|---|", ...rows].join("\n");
}

/**
 * Every file of ours an entry reaches, itself included (type-only imports count). With `eager`,
 * only through import and export declarations: what loading the entry loads, `import()` calls aside.
 */
export function closure(graph: Graph, entries: string[], { eager = false } = {}): string[] {
  const next = new Map<string, string[]>();
  for (const e of graph.internal)
    if (!(eager && e.lazy)) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length) {
    const f = todo.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...(next.get(f) ?? []));
  }
  return [...seen].sort();
}

/** Where the server's HTTP notions live: the error vocabulary with its statuses, the edge, its servers. */
const HTTP_FILES = ["src/errors/", "src/http/"];
const HTTP_PACKAGES = /^(fastify|@fastify\/|undici$|light-my-request$|accepts$)/;

/** Each import of an HTTP notion (a status-bearing error, the edge, an HTTP server package) by a file under `folders`. */
export function httpNotions(graph: Graph, folders: string[]): string[] {
  const within = (f: string) => folders.some((d) => f.startsWith(d));
  return [
    ...graph.internal
      .filter((e) => within(e.from) && HTTP_FILES.some((h) => e.to.startsWith(h)))
      .map((e) => `${e.from} → ${e.to}`),
    ...graph.external
      .filter((e) => within(e.from) && HTTP_PACKAGES.test(e.to))
      .map((e) => `${e.from} → ${e.to}`),
  ];
}

/** Each import from a file under `from` of a file under `to`. */
export function arrows(graph: Graph, from: string, to: string): string[] {
  return graph.internal
    .filter((e) => e.from.startsWith(from) && e.to.startsWith(to))
    .map((e) => `${e.from} → ${e.to}`);
}
