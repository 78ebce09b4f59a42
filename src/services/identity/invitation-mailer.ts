import nodemailer, { type Transporter } from "nodemailer";

/** A transport and the sender its messages carry. */
export interface Mailer {
  transport: Transporter;
  from: string;
}

/**
 * The SMTP transport invitations are sent through, made at the first invitation and reused after:
 * a service without invitations never parses ARCHIVIST_SMTP_URL, and the base URL the sender
 * defaults to is the one the service ended up with.
 */
export class InvitationMailer {
  private made: { smtpUrl: string; mailer: Mailer } | undefined;

  /** `?from=` on the SMTP URL sets the sender; otherwise no-reply at the service's host name. */
  of(smtpUrl: string, baseUrl: string): Mailer {
    if (this.made?.smtpUrl === smtpUrl) return this.made.mailer;
    const url = new URL(smtpUrl);
    const from = url.searchParams.get("from") ?? `no-reply@${new URL(baseUrl).hostname}`;
    url.searchParams.delete("from");
    const mailer = { transport: nodemailer.createTransport(url.toString()), from };
    this.made = { smtpUrl, mailer };
    return mailer;
  }
}
