import { z } from "zod";
import { filteredPageQuery } from "./common.js";

export const inviteCreate = z.object({
  email: z.email("email must be a valid e-mail address"),
  message: z.string().max(4000).optional(),
});

export const inviteList = filteredPageQuery("email");

export const inviteAccept = z.object({
  code: z.string().min(1, "code is required"),
  display_name: z.string().max(256).optional(),
});

export const invite = z.object({
  identity: z.string(),
  email: z.string(),
  message: z.string(),
  expiry_time: z.string(),
});

/** Create answers the invite and, once only, its one-time acceptance code. */
export const inviteCreated = invite.extend({ code: z.string() });

export const inviteListOut = z.object({ invites: z.array(invite), next_page_token: z.string() });
