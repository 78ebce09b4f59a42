import type { HttpDeps } from "../deps.js";
import type { RouteTable } from "../route.js";
import { accessPolicyRoutes } from "./access-policies.js";
import { applicationRoutes } from "./applications.js";
import { assetSummaryRoutes } from "./asset-summaries.js";
import { assetRoutes } from "./assets.js";
import { attachmentRoutes } from "./attachments.js";
import { blobRoutes } from "./blobs.js";
import { chainRoutes } from "./chain.js";
import { complianceRoutes } from "./compliance.js";
import { consentRoutes } from "./consent.js";
import { consentProcessorRoutes } from "./consent-processors.js";
import { erasureRoutes } from "./erasure.js";
import { evidenceRoutes } from "./evidence.js";
import { freeEventRoutes } from "./free-events.js";
import { inviteRoutes } from "./invites.js";
import { ledgerRoutes } from "./ledger.js";
import { locationRoutes } from "./locations.js";
import { memberRoutes } from "./members.js";
import { policyMatchRoutes } from "./policy-matches.js";
import { publicAssetRoutes } from "./public-assets.js";
import { receiptBatchRoutes } from "./receipt-batch.js";
import { scittRoutes } from "./scitt.js";
import { siteRoutes } from "./site.js";
import { statementRoutes } from "./statements.js";
import { subjectRoutes } from "./subjects.js";
import { tenancyRoutes } from "./tenancies.js";
import { tlsCertificateRoutes } from "./tls-certificates.js";
import { tokenRoutes } from "./tokens.js";
import { verifyPageRoutes } from "./verify-page.js";
import { vindexRoutes } from "./vindex.js";

/** Every route module, in registration order (more specific paths first where they overlap). */
export const routeModules: Array<(t: RouteTable, d: HttpDeps) => void> = [
  tokenRoutes,
  applicationRoutes,
  tenancyRoutes,
  assetSummaryRoutes,
  assetRoutes,
  publicAssetRoutes,
  locationRoutes,
  freeEventRoutes,
  blobRoutes,
  attachmentRoutes,
  memberRoutes,
  inviteRoutes,
  subjectRoutes,
  tlsCertificateRoutes,
  complianceRoutes,
  ledgerRoutes,
  receiptBatchRoutes,
  chainRoutes,
  accessPolicyRoutes,
  policyMatchRoutes,
  scittRoutes,
  statementRoutes,
  evidenceRoutes,
  vindexRoutes,
  consentRoutes,
  consentProcessorRoutes,
  erasureRoutes,
  verifyPageRoutes,
  siteRoutes,
];
