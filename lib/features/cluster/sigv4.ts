import { createHash, createHmac } from 'node:crypto';

// AWS Signature Version 4 for header-signed requests (docs: "Signature Calculations for the
// Authorization Header"), written out so that the object-store client needs no AWS SDK.

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface RequestToSign {
  method: string;
  /** The path exactly as sent, already URI-encoded (S3 signs it as is, without a second encoding). */
  path: string;
  /** Decoded query parameters; the canonical form encodes and sorts them. */
  query: readonly (readonly [string, string])[];
  /** Every header to sign, host and x-amz-date included, names in lower case. */
  headers: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body (or the literal UNSIGNED-PAYLOAD). */
  payloadHash: string;
}

export const emptyPayloadHash = sha256Hex('');

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** RFC 3986 encoding as SigV4 defines it: everything but A-Z a-z 0-9 - . _ ~ (and `/` when kept). */
export function uriEncode(text: string, keepSlash = false): string {
  const encoded = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

/** The query string both sent and signed: encoded pairs sorted by name, then value. */
export function canonicalQuery(query: RequestToSign['query']): string {
  return query
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** `20150830T123600Z` for a date. */
export function amzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** The Authorization header value for `request` (its x-amz-date header fixes the signing time). */
export function authorization(request: RequestToSign, credentials: Credentials, region: string, service: string): string {
  const date = request.headers['x-amz-date'];
  if (!date) throw new Error('SigV4: the x-amz-date header is required');
  const names = Object.keys(request.headers).sort();
  const signedHeaders = names.join(';');
  const canonicalHeaders = names.map((n) => `${n}:${request.headers[n].trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [request.method, request.path, canonicalQuery(request.query), canonicalHeaders, signedHeaders, request.payloadHash].join('\n');
  const day = date.slice(0, 8);
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), service), 'aws4_request');
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
