import { z } from "zod";

const keys = z.array(z.string().max(256));

export const subjectCreate = z.object({
  display_name: z.string().min(1, "display_name is required").max(128),
  wallet_pub_key: keys.optional(),
  tessera_pub_key: keys.optional(),
});

export const subjectPatch = z.object({
  display_name: z.string().min(1, "display_name must not be empty").max(128).optional(),
  wallet_pub_key: keys.optional(),
  tessera_pub_key: keys.optional(),
});

export const subjectImport = z.object({
  display_name: z.string().max(128).optional(),
  subject_string: z.string().min(1, "subject_string is required"),
});

export const subjectList = z.object({
  display_name: z.union([z.string(), z.array(z.string())]).optional(),
  wallet_address: z.union([z.string(), z.array(z.string())]).optional(),
  confirmation_status: z
    .union([z.enum(["PENDING", "CONFIRMED"]), z.array(z.enum(["PENDING", "CONFIRMED"]))])
    .optional(),
  page_size: z.string().optional(),
  page_token: z.string().optional(),
});

export const subject = z.object({
  identity: z.string(),
  display_name: z.string(),
  wallet_pub_key: z.array(z.string()),
  wallet_address: z.array(z.string()),
  tessera_pub_key: z.array(z.string()),
  tenant: z.string(),
  confirmation_status: z.string(),
});

export const subjectListOut = z.object({ subjects: z.array(subject), next_page_token: z.string() });

export const subjectString = z.object({ subject_string: z.string() });
