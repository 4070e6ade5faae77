// Credentials (Authentication rules 2-4): exactly one of `Authorization: Bearer <token>` or
// `X-API-Key: svc_...`. Keys are `svc_...`; the web application's login token is `app_...`
// and is accepted only as a Bearer token.
import type { Capability } from '../api/operations.js';
import { type CustomerRec, type SandboxState, lookupCredential } from './state.js';

export type Credential =
  | { kind: 'none' }
  | { kind: 'conflicting' }
  | { kind: 'invalid' }
  | { kind: 'key'; customer: CustomerRec; capability: Capability; key: string }
  | { kind: 'app'; customer: CustomerRec };

/** Which credential headers a request carried (for the request log; never their values). */
export type CredentialHeaders = 'none' | 'authorization' | 'x-api-key' | 'both';

/** `headersDistinct` keeps repeated headers apart, so a doubled header counts as two. */
type DistinctHeaders = Record<string, string[] | undefined>;

export function credentialHeaders(headers: DistinctHeaders): CredentialHeaders {
  const auth = headers.authorization?.length ?? 0;
  const apiKey = headers['x-api-key']?.length ?? 0;
  if (auth + apiKey === 0) return 'none';
  if (auth > 0 && apiKey > 0) return 'both';
  return auth > 0 ? 'authorization' : 'x-api-key';
}

export function resolveCredential(state: SandboxState, headers: DistinctHeaders): Credential {
  const auth = headers.authorization ?? [];
  const apiKey = headers['x-api-key'] ?? [];
  if (auth.length + apiKey.length === 0) return { kind: 'none' };
  if (auth.length + apiKey.length > 1) return { kind: 'conflicting' };
  let token: string;
  if (auth.length === 1) {
    const m = /^Bearer +(\S+) *$/i.exec(auth[0]);
    if (!m) return { kind: 'invalid' };
    token = m[1];
  } else {
    token = apiKey[0].trim();
    if (!token.startsWith('svc_')) return { kind: 'invalid' };
  }
  const found = lookupCredential(state, token);
  if (!found) return { kind: 'invalid' };
  if (!found.key) return { kind: 'app', customer: found.customer };
  if (found.key.revoked) return { kind: 'invalid' };
  return { kind: 'key', customer: found.customer, capability: found.key.capability, key: found.key.key };
}
