// Small HTTP helpers shared by the API, admin endpoints and pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { type ApiError, apiError } from './errors.js';

const MAX_BODY_BYTES = 1024 * 1024;

export interface Reply {
  status: number;
  /** The exact body text (idempotent replays resend it byte for byte). */
  text: string;
  headers?: Record<string, string>;
}

// Unique per request, not secret: a random prefix per process and a counter. A fresh
// randomBytes per request was a system call on every request.
const REQUEST_ID_PREFIX = `req_${randomBytes(6).toString('hex')}`;
let requestCounter = 0;
export const newRequestId = () => `${REQUEST_ID_PREFIX}${(++requestCounter).toString(16).padStart(12, '0')}`;

export interface Body {
  text: string;
  tooLarge: boolean;
}

const EMPTY: Body = { text: '', tooLarge: false };
const NO_BODY = Promise.resolve(EMPTY);

/**
 * The body when the request says it has none (most do): no listeners, no wait for 'end' and
 * no turn of the event loop. Undefined when there is one to read (readBody).
 */
export function bodyless(req: IncomingMessage): Body | undefined {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')) return undefined;
  req.resume();
  return EMPTY;
}

/** Reads the whole body; an oversized body is drained and reported as too large. */
export function readBody(req: IncomingMessage): Promise<Body> {
  if (bodyless(req)) return NO_BODY;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > MAX_BODY_BYTES }));
    req.on('error', reject);
  });
}

/** `application/json` or `application/<something>+json`, parameters (charset) allowed; exactly one header. */
export function isJsonMediaType(values: string[] | string | undefined): boolean {
  const list = typeof values === 'string' ? [values] : values;
  if (!list || list.length !== 1) return false;
  const type = list[0].split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/** Parses a JSON body; undefined when empty and not required. */
export function parseJsonBody(text: string, required: boolean): unknown {
  if (text.trim() === '') {
    if (required) throw apiError('invalid_request_body', 'A JSON body is required');
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw apiError('invalid_request_body', 'The body is not valid JSON');
  }
}

export function jsonReply(status: number, payload: unknown, headers?: Record<string, string>): Reply {
  return { status, text: JSON.stringify(payload), headers };
}

export function errorReply(err: ApiError, requestId: string): Reply {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined) headers['Retry-After'] = String(err.retryAfter);
  return jsonReply(
    err.status,
    { error: err.message, description: err.description, error_code: err.code, request_id: requestId },
    headers,
  );
}

export function send(res: ServerResponse, reply: Reply, extraHeaders: Record<string, string> = {}): void {
  res.writeHead(reply.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(reply.text)),
    'Cache-Control': 'no-store',
    ...reply.headers,
    ...extraHeaders,
  });
  res.end(reply.text);
}
