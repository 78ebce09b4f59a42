import { z } from "zod";
import { filteredPageQuery } from "./common.js";

const pem = z.string().min(1, "must not be empty").max(1_000_000);

// Both spellings of the certificate field are accepted: the reference's and the usage examples'.
// A create and a patch take the same fields, all optional (a create checks it has a certificate).
export const tlsCertificateBody = z.object({
  display_name: z.string().max(256).optional(),
  tlscacertificate: pem.optional(),
  certificate: pem.optional(),
});

export const tlsCertificateList = filteredPageQuery("display_name");

export const tlsCertificate = z.object({
  identity: z.string(),
  display_name: z.string(),
  tlscacertificate: z.string(),
  certificate: z.string(),
});

export const tlsCertificateListOut = z.object({
  tlscacertificates: z.array(tlsCertificate),
  certificates: z.array(tlsCertificate),
  next_page_token: z.string(),
});
