import {
  ApiClient,
  type Consent,
  type ConsentVerification,
  DEFAULT_RETRY_POLICY,
  type FetchFn,
  fetchSender,
} from "vcon-archivist/client";
import { credentialsKey, type DeliveryBackend } from "../delivery/job.js";
import { TokenSource } from "../delivery/token-source.js";

/** Where the consent gate asks a vCon's consent: the backend's consent route, as its credentials read it. */
export interface ConsentSource {
  consent(backend: DeliveryBackend, vconUuid: string, purpose: string): Promise<Consent | undefined>;
  /** Verifies consent before `operation` and, when granted, has the backend record the verification. */
  verify(
    backend: DeliveryBackend,
    vconUuid: string,
    purpose: string,
    operation: string,
  ): Promise<ConsentVerification | undefined>;
}

/**
 * The consent route of each backend, through the API client (a token per backend and
 * credentials, kept while the runtime runs; retries as the client's policy allows).
 */
export class ClientConsentSource implements ConsentSource {
  private readonly clients = new Map<string, ApiClient>();

  constructor(private readonly fetchFn: FetchFn = fetch) {}

  private client(backend: DeliveryBackend): ApiClient {
    const key = credentialsKey(backend);
    let c = this.clients.get(key);
    if (!c) {
      c = new ApiClient({
        url: backend.url,
        tokens: new TokenSource(backend, this.fetchFn),
        send: fetchSender(this.fetchFn),
        policy: DEFAULT_RETRY_POLICY,
        headers: backend.partnerId ? { "DataTrails-Partner-ID": backend.partnerId } : {},
      });
      this.clients.set(key, c);
    }
    return c;
  }

  consent(backend: DeliveryBackend, vconUuid: string, purpose: string): Promise<Consent | undefined> {
    return this.client(backend).consent(vconUuid, purpose);
  }

  verify(
    backend: DeliveryBackend,
    vconUuid: string,
    purpose: string,
    operation: string,
  ): Promise<ConsentVerification | undefined> {
    return this.client(backend).verifyConsent(vconUuid, purpose, operation);
  }
}
