import { Command as Cli } from "commander";
import { TokenSource } from "../client/token-source.js";
import { CodedError } from "../formats/coded-error.js";
import { readBoundedText } from "../net/bounded-body.js";
import { fetchWithin, timeLimit } from "../net/time-limit.js";
import type { CredentialFlags } from "./caller-api.js";
import type { Exit } from "./command.js";
import { declared } from "./declare.js";

interface Options extends CredentialFlags {
  url?: string;
  json?: boolean;
  unacknowledged?: boolean;
}

class ProcessorsFailed extends CodedError<"PROCESSORS_FAILED"> {
  readonly code = "PROCESSORS_FAILED";
}

const TIMEOUT_MS = 60_000;
// Lists of processors and their notices: far below this; a larger answer is not the service's.
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

async function bearer(base: string, v: CredentialFlags): Promise<string> {
  const token = v.token ?? process.env.ARCHIVIST_TOKEN;
  if (token) return token;
  const clientId = v.clientId ?? process.env.ARCHIVIST_CLIENT_ID;
  const clientSecret = v.clientSecret ?? process.env.ARCHIVIST_CLIENT_SECRET;
  if (!clientId || !clientSecret)
    throw new ProcessorsFailed(
      "give credentials: --client-id and --client-secret (or ARCHIVIST_CLIENT_ID / ARCHIVIST_CLIENT_SECRET), or --token",
    );
  return new TokenSource({ url: base, clientId, clientSecret }).get();
}

/** One call to the service as an administrator: its JSON answer, or its error named. */
async function call(v: Options, method: string, path: string, body?: unknown): Promise<unknown> {
  if (!v.url) throw new ProcessorsFailed("--url <service> is required");
  const base = v.url.replace(/\/$/, "");
  const authorization = `Bearer ${await bearer(base, v)}`;
  const limit = timeLimit(TIMEOUT_MS);
  let res: Response;
  let text: string;
  try {
    res = await fetchWithin(
      fetch,
      `${base}${path}`,
      {
        method,
        headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      limit,
    );
    text = await readBoundedText(res, MAX_ANSWER_BYTES, `${method} ${path}`, limit.signal);
  } finally {
    limit.clear();
  }
  if (!res.ok) {
    let message = text.slice(0, 500);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {}
    throw new ProcessorsFailed(`${method} ${path} answered ${res.status}: ${message}`);
  }
  return text ? JSON.parse(text) : {};
}

interface Processor {
  identity: string;
  display_name: string;
  url: string;
  signing_secret?: string;
}

interface Notice {
  processor_name: string;
  vcon: string;
  purposes: string[];
  revocation: string;
  state: string;
  attempts: number;
  last_error: string | null;
  acknowledgement: string | null;
}

const noticeLine = (n: Notice) =>
  `${n.state === "acknowledged" ? "acknowledged" : n.state === "given_up" ? "GIVEN UP" : "NOT ACKNOWLEDGED"} ${n.processor_name}: ${n.vcon} ${n.purposes.length ? n.purposes.join(", ") : "(every purpose)"} revoked by ${n.revocation}${n.acknowledgement ? ` (acknowledgement ${n.acknowledgement})` : ` (${n.attempts} attempt(s)${n.last_error ? `, last: ${n.last_error}` : ""})`}`;

function withCredentials(c: Cli): Cli {
  return c
    .option("--url <service>", "the service")
    .option("--json", "print the answer as JSON")
    .option("--token <jwt>", "a bearer token (or ARCHIVIST_TOKEN)")
    .option("--client-id <id>", "client credentials (or ARCHIVIST_CLIENT_ID)")
    .option("--client-secret <secret>", "client credentials (or ARCHIVIST_CLIENT_SECRET)");
}

/**
 * Wraps a subcommand's step into commander's action: its answer printed (as JSON with --json, else
 * its lines), then the exit code, 4 when the service refused and 1 on any other failure.
 */
function actionOf(exit: Exit) {
  return <A extends unknown[]>(fn: (...a: A) => Promise<string[] | unknown>) =>
    async (...a: A) => {
      // commander passes the options second to last, after the arguments.
      const v = a.at(-2) as Options;
      try {
        const out = await fn(...a);
        process.stdout.write(
          v.json ? `${JSON.stringify(out, null, 2)}\n` : `${(out as string[]).join("\n")}\n`,
        );
        exit(0);
      } catch (err) {
        process.stdout.write(`FAILED ${err instanceof Error ? err.message : String(err)}\n`);
        exit(err instanceof ProcessorsFailed ? 4 : 1);
      }
    };
}

export const processorsCommand = declared((exit: Exit) => {
  const act = actionOf(exit);
  const cli = new Cli("processors").description(
    "Register the processors of your tenancy's vCons (conserver pipelines, applications) to be told of each consent revocation: a signed webhook (Standard Webhooks), retried until the processor answers 2xx, its acknowledgement recorded in the log (docs/vcon-lifecycle.md). Administrators only.",
  );
  cli.addCommand(
    withCredentials(new Cli("add"))
      .description("register a processor; prints its signing secret (shown only once)")
      .argument("<name>", "who processes")
      .argument("<notice-url>", "where the notices are posted")
      .action(
        act(async (name: string, url: string, v: Options) => {
          const p = (await call(v, "POST", "/archivist/v1/consent/processors", {
            display_name: name,
            url,
          })) as Processor;
          return v.json
            ? p
            : [`${p.identity} ${p.display_name} ${p.url}`, `signing secret: ${p.signing_secret}`];
        }),
      ),
  );
  cli.addCommand(
    withCredentials(new Cli("list"))
      .description("the registered processors")
      .action(
        act(async (v: Options) => {
          const r = (await call(v, "GET", "/archivist/v1/consent/processors")) as {
            processors: Processor[];
          };
          return v.json ? r : r.processors.map((p) => `${p.identity} ${p.display_name} ${p.url}`);
        }),
      ),
  );
  cli.addCommand(
    withCredentials(new Cli("remove"))
      .description("stop telling a processor of revocations")
      .argument("<processor>", "consent/processors/<uuid>")
      .action(
        act(async (id: string, v: Options) => {
          const uuid = id.replace(/^consent\/processors\//, "");
          await call(v, "DELETE", `/archivist/v1/consent/processors/${encodeURIComponent(uuid)}`);
          return v.json ? { removed: `consent/processors/${uuid}` } : [`removed consent/processors/${uuid}`];
        }),
      ),
  );
  cli.addCommand(
    withCredentials(new Cli("notices"))
      .description("the revocation notices, and which processors have not acknowledged them")
      .argument("[vcon]", "vcon://<uuid>: only this vCon's")
      .option("--unacknowledged", "only the notices not acknowledged")
      .action(
        act(async (vcon: string | undefined, v: Options) => {
          const q = new URLSearchParams();
          if (vcon) q.set("vcon", vcon);
          if (v.unacknowledged) q.set("unacknowledged", "true");
          const r = (await call(v, "GET", `/archivist/v1/consent/notices?${q}`)) as {
            notices: Notice[];
            unacknowledged: Notice[];
          };
          if (v.json) return r;
          return [
            ...r.notices.map(noticeLine),
            `${r.unacknowledged.length} notice(s) NOT acknowledged of ${r.notices.length}`,
          ];
        }),
      ),
  );
  return cli;
});
