import crypto from 'node:crypto';

/** One request body with the headers that make it a valid signed webhook delivery. */
export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** Built independently of src/ on purpose: a bench that shares the service's code could share its bug. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signedJson(secret: string, value: unknown): SignedRequest {
  const body = JSON.stringify(value);
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-signature-256': signatureOf(secret, body) },
  };
}

/** Plain JSON for targets that take no signature (Alertmanager). */
export function unsignedJson(value: unknown): SignedRequest {
  return { body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
}
