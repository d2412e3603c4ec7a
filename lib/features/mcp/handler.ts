// The /mcp routes' work (routes.ts loads it with the first request): each request bridged to the
// MCP SDK's Streamable HTTP transport, which speaks Fetch-API Request/Response; an event-stream
// answer goes out piece by piece at the pace the client reads.
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { StoreSlot } from '../../route_kit/slot';
import { type PieceSource, type Reply, json } from '../../http/reply';
import type { Request } from '../../http/request';
import type { Method } from '../../http/route';
import type { FeatureOptions } from '../feature';
import { carrying, mcpServer } from './server';
import { Sessions } from './sessions';
import { messagesOf } from './messages';

/** Response headers the HTTP layer writes itself (uWebSockets.js frames the body and keeps the connection). */
const OWN_HEADERS = new Set(['content-type', 'content-length', 'connection', 'transfer-encoding']);

/** A JSON-RPC error answered before any transport is involved, shaped as the SDK shapes its own. */
const rpcError = (status: number, code: number, message: string): Reply => json({ jsonrpc: '2.0', error: { code, message }, id: null }, status);

/** The Fetch-API request the transport reads: method, path, the headers it needs, the body. */
function webRequest(method: Method, req: Request): globalThis.Request {
  return new globalThis.Request(new URL(req.path, 'http://localhost'), {
    method,
    headers: req.headers,
    body: method === 'POST' ? (req.bytes as Uint8Array<ArrayBuffer>) : undefined,
  });
}

/**
 * An SSE comment, which clients skip, opening a GET stream: uWebSockets.js ends a response's head
 * only with its first body bytes, a GET stream's first event may be long in coming, and the
 * deadline runs until the head is out.
 */
const OPENING = Buffer.from(': stream open\n\n');
const COLON = 0x3a;

/**
 * A response body stream as pieces; the request's cancellation (client gone, shutdown grace over)
 * cancels it. A GET stream starts with OPENING. A POST's stream skips the SDK's keep-alive comments
 * before its first event: they would send the head early and so end the deadline of a slow call.
 * (The SDK writes each event and each comment as one chunk.)
 */
function pieces(method: Method, req: Request, body: ReadableStream<Uint8Array>): PieceSource {
  const reader = body.getReader();
  const release = () => void reader.cancel().catch(() => undefined);
  req.cancelWith({ cancel: release });
  let opening = method === 'GET' ? OPENING : null;
  let beforeFirstEvent = method === 'POST';
  return {
    next: async () => {
      if (opening) {
        const piece = opening;
        opening = null;
        return piece;
      }
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        if (beforeFirstEvent && value[0] === COLON) continue;
        beforeFirstEvent = false;
        return value;
      }
    },
    close: release,
  };
}

/** The transport's Response as our Reply: an event stream streamed, anything else whole. */
async function reply(method: Method, req: Request, response: Response): Promise<Reply> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!OWN_HEADERS.has(name)) headers[name] = value;
  });
  const contentType = response.headers.get('content-type') ?? 'application/json';
  if (response.body && contentType.startsWith('text/event-stream')) {
    return { status: response.status, contentType, headers, pieces: pieces(method, req, response.body) };
  }
  return { status: response.status, contentType, headers, body: new Uint8Array(await response.arrayBuffer()) };
}

export interface McpHandler {
  /** Answers one /mcp request. */
  handle(method: Method, req: Request): Promise<Reply>;
  /** Ends every open event stream (the server is closing). */
  close(): void;
}

export function mcpHandler(slot: StoreSlot, options: FeatureOptions): McpHandler {
  const { relay } = options;
  const sessions = new Sessions(() => mcpServer(slot, options), relay ? `${relay.index}-` : '');

  /** The session's transport; a new one for an initialize; or the error the SDK would answer. */
  async function transportFor(method: Method, req: Request): Promise<WebStandardStreamableHTTPServerTransport | Reply> {
    const id = req.headers['mcp-session-id'];
    if (id !== undefined) return sessions.find(slot.scope(req), id) ?? rpcError(404, -32001, 'Session not found');
    if (method !== 'POST') return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const messages = messagesOf(req.bytes);
    if (messages === null) return rpcError(400, -32700, 'Parse error: Invalid JSON');
    if (!messages.some(isInitializeRequest)) return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    return sessions.open(slot.scope(req));
  }

  async function handleHere(method: Method, req: Request): Promise<Reply> {
    const transport = await transportFor(method, req);
    if (!('handleRequest' in transport)) return transport;
    return reply(method, req, await transport.handleRequest(webRequest(method, req), { authInfo: carrying(req) }));
  }
  // A session lives on the thread that opened it: the others relay its requests here (routes.ts),
  // each holding its namespace's store here as its route would.
  relay?.serve(
    'mcp',
    async (req) => {
      await slot.enter?.(req);
      return handleHere(req.method as Method, req);
    },
    (req) => slot.leave?.(req),
  );

  return {
    handle: handleHere,
    close: () => sessions.endStreams(),
  };
}
