import accepts from "accepts";
import type { FastifyRequest } from "fastify";
import { scittProblem, sendProblem } from "./errors.js";
import type { Auth, Call } from "./route.js";

/** A SCRAPI handler whose failures are problem details, never the DataTrails error body. */
export function scrapi<Q, A extends Auth>(
  fn: (c: Call<unknown, Q, A>) => Promise<unknown>,
): (c: Call<unknown, Q, A>) => Promise<unknown> {
  return async (c) => {
    try {
      return await fn(c);
    } catch (err) {
      const answer = scittProblem(err);
      if (!answer) throw err;
      return sendProblem(c.req, c.res, answer.problem, answer.headers);
    }
  };
}

/** The type keys are served as: `application/cbor`, or the COSE key type a client asks for by name. */
export function keyType(req: FastifyRequest, coseType: string): string {
  return accepts(req.raw).type(["application/cbor", coseType]) === coseType ? coseType : "application/cbor";
}
