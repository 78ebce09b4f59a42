import type { CompliancePolicyInput } from "../core/compliance/index.js";
import type { Queryable } from "./db.js";
import { anyOf, keysetSource, type RowSource } from "./row-source.js";
import { Where } from "./sql.js";

export interface CompliancePolicyRow {
  seq: number;
  id: string;
  tenant_id: string;
  compliance_type: string;
  body: CompliancePolicyInput;
}

const COLUMNS = "seq, id, tenant_id, compliance_type, body";

export async function insertCompliancePolicy(
  db: Queryable,
  id: string,
  tenantId: string,
  body: CompliancePolicyInput,
): Promise<CompliancePolicyRow> {
  const rows = await db.query<CompliancePolicyRow>(
    `insert into compliance_policies (id, tenant_id, compliance_type, display_name, body) values ($1, $2, $3, $4, $5::jsonb) returning ${COLUMNS}`,
    [id, tenantId, body.compliance_type, body.display_name, JSON.stringify(body)],
  );
  return rows[0] as CompliancePolicyRow;
}

/** The statements on one policy of a tenancy: reading it, and deleting it (answering what it held). */
const ONE_POLICY = {
  get: `select ${COLUMNS} from compliance_policies where tenant_id = $1 and id = $2`,
  delete: `delete from compliance_policies where tenant_id = $1 and id = $2 returning ${COLUMNS}`,
};

async function onePolicy(db: Queryable, statement: keyof typeof ONE_POLICY, tenantId: string, id: string) {
  return (await db.query<CompliancePolicyRow>(ONE_POLICY[statement], [tenantId, id]))[0];
}

export const getCompliancePolicy = (db: Queryable, tenantId: string, id: string) =>
  onePolicy(db, "get", tenantId, id);

export const deleteCompliancePolicy = (db: Queryable, tenantId: string, id: string) =>
  onePolicy(db, "delete", tenantId, id);

/** A tenancy's compliance policies, optionally of some types. */
export function compliancePolicyRows(
  db: Queryable,
  tenantId: string,
  f: { types?: string[] | undefined },
): RowSource<CompliancePolicyRow> {
  const w = new Where([tenantId]).and("tenant_id = $1");
  return keysetSource(db, "compliance_policies", COLUMNS, anyOf(w, "compliance_type", f.types));
}

export function allCompliancePolicies(db: Queryable, tenantId: string): Promise<CompliancePolicyRow[]> {
  return db.query<CompliancePolicyRow>(
    `select ${COLUMNS} from compliance_policies where tenant_id = $1 order by seq`,
    [tenantId],
  );
}

export async function countCompliancePolicies(db: Queryable, tenantId: string): Promise<number> {
  return (
    (
      await db.query<{ n: number }>(
        "select count(*)::int as n from compliance_policies where tenant_id = $1",
        [tenantId],
      )
    )[0]?.n ?? 0
  );
}
