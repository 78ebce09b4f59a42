import { appendNodesNeeded as mmrNodesNeeded } from "../core/log/mmr-append.js";
import { type NewNode, appendNodesNeeded as treeNodesNeeded } from "../core/log/tree-append.js";
import { nodeKey } from "../store/ledger/tlog-nodes.js";

/** What the next append to a log reads: its MMR's peaks and its RFC 9162 tree's frontier. */
export interface Frontier {
  mmrSize: number;
  /** Node hashes by MMR index: every index `appendNodesNeeded(mmrSize)` names. */
  mmr: Map<number, Uint8Array>;
  treeSize: number;
  /** Subtree hashes by `nodeKey(level, idx)`: every coordinate the tree's frontier names. */
  tree: Map<string, Uint8Array>;
}

const DEFAULT_MAX_LOGS = 10_000;

/**
 * The frontier each log had after this process's last commit to it, so that the next commit
 * reads neither its MMR peaks nor its tree frontier back (two statements of the nine a commit
 * batch runs). A node's hash never changes once committed, so a frontier is right for as long as
 * the log still has the size it was taken at; a commit by another process, or a backfill of the
 * tree, changes the size, and the committer then reads the nodes as before. Frontiers are given
 * only after their transaction has committed.
 */
export class LogFrontiers {
  private readonly logs = new Map<string, Frontier>();

  constructor(private readonly maxLogs = DEFAULT_MAX_LOGS) {}

  /** The MMR nodes the next append reads, if the log still has the size of this process's last commit. */
  mmr(tenantId: string, mmrSize: number): Map<number, Uint8Array> | undefined {
    const f = this.logs.get(tenantId);
    return f && f.mmrSize === mmrSize ? f.mmr : undefined;
  }

  /** The tree's frontier, if the tree still has the size of this process's last commit. */
  tree(tenantId: string, treeSize: number): Map<string, Uint8Array> | undefined {
    const f = this.logs.get(tenantId);
    return f && f.treeSize === treeSize ? f.tree : undefined;
  }

  /** Keeps a committed log's frontier; the least recently committed logs go first past the bound. */
  remember(tenantId: string, frontier: Frontier): void {
    this.logs.delete(tenantId);
    this.logs.set(tenantId, frontier);
    for (const oldest of this.logs.keys()) {
      if (this.logs.size <= this.maxLogs) break;
      this.logs.delete(oldest);
    }
  }
}

/**
 * A log's frontier after an append, from the nodes the append read (`before`) and those it wrote;
 * undefined if one is missing from both (then the next commit reads them).
 */
export function frontierAfter(
  mmr: { size: number; before: ReadonlyMap<number, Uint8Array>; firstNew: number; added: Uint8Array[] },
  tree: { size: number; before: ReadonlyMap<string, Uint8Array>; added: NewNode[] },
): Frontier | undefined {
  const mmrNodes = new Map<number, Uint8Array>();
  for (const i of mmrNodesNeeded(mmr.size)) {
    const h = i >= mmr.firstNew ? mmr.added[i - mmr.firstNew] : mmr.before.get(i);
    if (!h) return undefined;
    mmrNodes.set(i, h);
  }
  // A frontier node made by the append is the last node the append made at its level (a level's
  // nodes come in index order): one slot per level, not a map of every node made.
  const lastAt: NewNode[] = [];
  for (const n of tree.added) lastAt[n.level] = n;
  const treeNodes = new Map<string, Uint8Array>();
  for (const c of treeNodesNeeded(tree.size)) {
    const key = nodeKey(c.level, c.idx);
    const last = lastAt[c.level];
    const h = last !== undefined && last.idx === c.idx ? last.hash : tree.before.get(key);
    if (!h) return undefined;
    treeNodes.set(key, h);
  }
  return { mmrSize: mmr.size, mmr: mmrNodes, treeSize: tree.size, tree: treeNodes };
}
