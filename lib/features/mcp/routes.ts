// The /mcp routes (feature `mcp`): POST, GET and DELETE /mcp bridged to the MCP SDK's Streamable
// HTTP transport (handler.ts). They run inside the server's middleware like any route (token,
// --max-body-bytes, shedding, metrics, request ids). The SDK and the tools' schemas take about
// 0.2 s to load, a third of a server's start: they load with the first /mcp request instead.
import { closed, STRING } from '../../route_kit/components';
import type { StoreSlot } from '../../route_kit/slot';
import { type Route, type RouteDoc, route } from '../../http/route';
import type { FeatureOptions } from '../feature';
import type { McpHandler } from './handler';

/** The request headers the transport reads. */
const HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'] as const;

/** A JSON-RPC error the transport answers (tool schemas and the protocol itself: see the MCP specification). */
const RPC_ERROR = closed(
  {
    jsonrpc: { const: '2.0' },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: STRING }, required: ['code', 'message'] },
    id: { type: ['string', 'integer', 'null'] },
  },
  ['jsonrpc', 'error'],
);
const RPC_FAILURE = { description: 'Refused by the MCP transport', schema: RPC_ERROR };
/** A session id the server does not know; a build without feature mcp answers the plain 404 of an absent route. */
const UNKNOWN_SESSION = {
  description: 'Unknown session (a build without feature mcp: no such route)',
  schema: { anyOf: [RPC_ERROR, { $ref: '#/components/schemas/Error' }] },
};
const MESSAGES = { type: ['object', 'array'], description: 'A JSON-RPC message, or a batch of them' };

/** Model Context Protocol (Streamable HTTP) by method: POST a message, GET the event stream, DELETE the session. */
const DOCS: Record<'POST' | 'GET' | 'DELETE', RouteDoc> = {
  POST: {
    operationId: 'mcpPost',
    summary: 'Send an MCP JSON-RPC message (initialize first; then Mcp-Session-Id)',
    request: MESSAGES,
    responses: {
      200: { description: 'The answer, as JSON or as an event stream', schema: MESSAGES, content: { 'text/event-stream': STRING } },
      202: { description: 'A notification or response accepted' },
      400: { description: 'Refused by the MCP transport, or by the server', schema: { anyOf: [RPC_ERROR, { $ref: '#/components/schemas/Error' }] } },
      404: UNKNOWN_SESSION,
      406: RPC_FAILURE,
      415: RPC_FAILURE,
    },
  },
  GET: {
    operationId: 'mcpGet',
    summary: "The session's server-to-client event stream",
    responses: {
      200: { description: 'Server-sent events', content: { 'text/event-stream': STRING } },
      400: { description: 'No session id', schema: RPC_ERROR },
      404: UNKNOWN_SESSION,
      406: RPC_FAILURE,
      409: { description: 'The session already has a stream open', schema: RPC_ERROR },
    },
  },
  DELETE: {
    operationId: 'mcpDelete',
    summary: 'End the session',
    responses: { 200: { description: 'Ended' }, 400: { description: 'No session id', schema: RPC_ERROR }, 404: UNKNOWN_SESSION },
  },
};

export function mcpRoutes(slot: StoreSlot, options: FeatureOptions): Route[] {
  let handler: McpHandler | undefined;
  const loaded = (): McpHandler => {
    handler ??= (require('./handler') as typeof import('./handler')).mcpHandler(slot, options);
    return handler;
  };
  const mcpRoute = (method: keyof typeof DOCS): Route =>
    route({
      method,
      path: '/mcp',
      access: 'read',
      headers: HEADERS,
      doc: DOCS[method],
      ...(method === 'POST' ? { body: 'raw' as const, writeTimeoutWhen: (req) => loaded().callsWritingTool(req) } : {}),
      handle: (req) => loaded().handle(method, req),
    });
  return [mcpRoute('POST'), { ...mcpRoute('GET'), close: () => handler?.close() }, mcpRoute('DELETE')];
}
