import type { Ctx, Principal } from "../context.js";
import { forbidden, notFound, quotaExceeded } from "../errors/api-error.js";
import type { Db, Queryable } from "../store/drivers/db.js";
import { lockTenancy } from "../store/identity/tenancies.js";
import type { RowSource } from "../store/query/row-source.js";

type DbCtx = Pick<Ctx, "db">;

/**
 * How one collection of tenancy configuration (access policies, members, subjects, invites,
 * applications, TLS CA certificates, compliance policies, locations) is kept: each names its own
 * words and statements; `adminCollection` writes the steps they all take once.
 */
export interface AdminCollectionSpec<R, O, C extends DbCtx> {
  /** The 403's message for a caller who does not administer the tenancy. */
  forbidden: string;
  /** What the 404 names when the tenancy has no such row ("access policy"). */
  item: string;
  /** The API shape of a row. */
  out: (row: R) => O;
  /** One row of the tenancy. */
  get?: (db: Queryable, tenantId: string, id: string) => Promise<R | undefined>;
  /** Deletes one row of the tenancy; falsy when it had none. */
  delete?: (db: Queryable, tenantId: string, id: string) => Promise<unknown>;
  /** The tenancy's rows a list query asks for (it may refuse the query: it runs after the admin check). */
  list?: (db: Queryable, tenantId: string, pairs: Array<[string, string]>) => RowSource<R>;
  /** The tenancy quota an insert counts against: its key, the 429's words, and the rows there are. */
  quota?: { key: string; label: string; count: (db: Queryable, tenantId: string) => Promise<number> };
  /** Forgets what the context caches of the collection, after every write (even one that found no row). */
  forget?: (ctx: C) => void;
}

/** The administrator-only use cases of a collection of tenancy configuration (see the spec). */
export function adminCollection<R, O, C extends DbCtx = DbCtx>(spec: AdminCollectionSpec<R, O, C>) {
  const requireAdmin = (p: Principal): void => {
    if (!p.isAdmin) throw forbidden(spec.forbidden);
  };
  const found = <T>(row: T | undefined | null | false): T => {
    if (!row) throw notFound(spec.item);
    return row;
  };
  const need = <F>(f: F | undefined, what: string): F => {
    if (!f) throw new Error(`${spec.item}: the collection has no ${what}`);
    return f;
  };
  /** A write of one row (its validation inside `change`, after the admin check); the row written. */
  const write = async (
    ctx: C,
    p: Principal,
    change: (db: Queryable, tenantId: string) => Promise<R | undefined>,
  ) => {
    requireAdmin(p);
    const row = await change(ctx.db, p.tenantId);
    spec.forget?.(ctx);
    return found(row);
  };
  return {
    requireAdmin,
    /** The row, or the collection's 404. */
    found,

    /** One row of the caller's tenancy in its API shape. */
    async read(ctx: DbCtx, p: Principal, id: string): Promise<O> {
      requireAdmin(p);
      return spec.out(found(await need(spec.get, "get")(ctx.db, p.tenantId, id)));
    },

    /** The rows of the caller's tenancy that the list query asks for. */
    source(ctx: DbCtx, p: Principal, pairs: Array<[string, string]>): RowSource<R> {
      requireAdmin(p);
      return need(spec.list, "list")(ctx.db, p.tenantId, pairs);
    },

    write,

    /** A PATCH use case answering in the API shape: `update` writes the row (validating the patch first). */
    patcher<P>(update: (db: Queryable, tenantId: string, id: string, patch: P) => Promise<R | undefined>) {
      return async (ctx: C, p: Principal, id: string, patch: P): Promise<O> =>
        spec.out(await write(ctx, p, (db, tenantId) => update(db, tenantId, id, patch)));
    },

    async remove(ctx: C, p: Principal, id: string): Promise<void> {
      requireAdmin(p);
      const deleted = await need(spec.delete, "delete")(ctx.db, p.tenantId, id);
      spec.forget?.(ctx);
      found(deleted);
    },

    /**
     * Inserts a row under the tenancy's quota, if it sets one: the tenancy row is locked first, so
     * two inserts at once cannot both pass the count.
     */
    insertUnderQuota(db: Db, tenantId: string, insert: (tx: Queryable) => Promise<R>): Promise<R> {
      const quota = need(spec.quota, "quota");
      return db.transaction(async (tx) => {
        const limit = (await lockTenancy(tx, tenantId))?.quotas[quota.key];
        if (limit !== undefined && (await quota.count(tx, tenantId)) >= limit)
          throw quotaExceeded(quota.label, limit);
        return insert(tx);
      });
    },
  };
}

/** A row's API shape: its `identity` (`<collection>/<id>`), then the named columns as stored, in that order. */
export function identified<R extends { id: string }, K extends keyof R & string>(
  collection: string,
  row: R,
  columns: readonly K[],
): { identity: string } & Pick<R, K> {
  const out: Record<string, unknown> = { identity: `${collection}/${row.id}` };
  for (const c of columns) out[c] = row[c];
  return out as { identity: string } & Pick<R, K>;
}
