import type { FastifyReply } from "fastify";

/** Answers COSE bytes (a receipt, a statement, a seal) as `application/cose`. */
export function sendCose(res: FastifyReply, bytes: Uint8Array, status = 200): FastifyReply {
  return res.code(status).header("content-type", "application/cose").send(Buffer.from(bytes));
}
