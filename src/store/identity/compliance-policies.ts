import type { CompliancePolicyInput } from "../../core/compliance/index.js";
import type { Queryable } from "../drivers/db.js";
import { anyOf, type RowSource } from "../query/row-source.js";
import { firstRow } from "../query/sql.js";
import { tenantTable } from "../query/tenant-table.js";

export interface CompliancePolicyRow {
  seq: number;
  id: string;
  tenant_id: string;
  compliance_type: string;
  body: CompliancePolicyInput;
}

const table = tenantTable<CompliancePolicyRow, never>({
  table: "compliance_policies",
  columns: ["seq", "id", "tenant_id", "compliance_type", "body"],
});
const COLUMNS = table.select;

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

export const getCompliancePolicy = table.get;

/** Deletes a policy of the tenancy, answering what it held (undefined when it had none). */
export function deleteCompliancePolicy(
  db: Queryable,
  tenantId: string,
  id: string,
): Promise<CompliancePolicyRow | undefined> {
  const sql = `delete from compliance_policies where tenant_id = $1 and id = $2 returning ${COLUMNS}`;
  return firstRow<CompliancePolicyRow>(db, sql, [tenantId, id]);
}

/** A tenancy's compliance policies, optionally of some types. */
export function compliancePolicyRows(
  db: Queryable,
  tenantId: string,
  f: { types?: string[] | undefined },
): RowSource<CompliancePolicyRow> {
  return table.rows(db, tenantId, (w) => anyOf(w, "compliance_type", f.types));
}

export const allCompliancePolicies = table.all;
export const countCompliancePolicies = table.count;
