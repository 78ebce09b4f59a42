/** Comparison operators of the OData filter. */
export type ODataOp = "eq" | "ne" | "gt" | "ge" | "lt" | "le";

/** Scalar string properties of an asset-free event. */
export type ODataTextField =
  | "event_type"
  | "origin_tenant"
  | "created_by"
  | "ledger_entry/idtimestamp"
  | "ledger_entry/content_hash";

/** Scalar 64-bit integer properties. */
export type ODataIntegerField = "created_at" | "ledger_entry/index";

/** What a comparison reads: a scalar field, or one attribute compared as `->>` text. */
export type ODataTarget =
  | { kind: "field"; field: ODataTextField | ODataIntegerField }
  | { kind: "attribute"; name: string };

/**
 * A parsed filter. Integer values are canonical decimal strings (64-bit range); `null`
 * appears only with `eq`/`ne`. `any` is `trails/any(t: t eq 'a' or t eq 'b')`.
 */
export type ODataExpr =
  | { kind: "compare"; op: ODataOp; target: ODataTarget; value: string | null }
  | { kind: "any"; field: "trails"; values: string[] }
  | { kind: "and"; items: ODataExpr[] }
  | { kind: "or"; items: ODataExpr[] }
  | { kind: "not"; item: ODataExpr };

/** Every property a column map must supply (`attributes` is the jsonb attribute map). */
export type ODataProperty = ODataTextField | ODataIntegerField | "trails" | "attributes";

/** How the caller's SQL expression for a property is typed. */
export type ODataColumnType = "text" | "bigint" | "text[]" | "jsonb-text";

/** The SQL column expression of every property; trusted text from the caller, never input. */
export type ODataColumnMap = Readonly<Record<ODataProperty, { sql: string; type: ODataColumnType }>>;
