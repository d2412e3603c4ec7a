// The /mcp routes (feature `mcp`): POST, GET and DELETE /mcp bridged to the MCP SDK's Streamable
// HTTP transport (handler.ts). They run inside the server's middleware like any route (token,
// --max-body-bytes, shedding, metrics, request ids). The SDK and the tools' schemas take about
// 0.2 s to load, a third of a server's start: they load with the first /mcp request instead.
import type { StoreSlot } from '../../route_kit/slot';
import type { Request } from '../../http/request';
import type { Method, Route } from '../../http/route';
import { tableRoute } from '../../route_kit/table_route';
import type { FeatureOptions } from '../feature';
import type { McpHandler } from './handler';
import { callsWritingTool, ownerOf } from './messages';

/** The request headers the transport reads. */
const HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'] as const;

export function mcpRoutes(slot: StoreSlot, options: FeatureOptions): Route[] {
  let handler: McpHandler | undefined;
  const loaded = (): McpHandler => {
    handler ??= (require('./handler') as typeof import('./handler')).mcpHandler(slot, options);
    return handler;
  };
  // A session lives on the HTTP thread that opened it: a request for it landing on another is relayed there.
  const { relay } = options;
  const answer = (method: Method, req: Request) => {
    const owner = ownerOf(req.headers['mcp-session-id']);
    return relay?.elsewhere(owner) ? relay.forward(owner, 'mcp', req) : loaded().handle(method, req);
  };
  const ids = { POST: 'mcpPost', GET: 'mcpGet', DELETE: 'mcpDelete' } as const;
  const mcpRoute = (method: keyof typeof ids): Route =>
    tableRoute(ids[method], (req) => answer(method, req), {
      headers: HEADERS,
      ...(method === 'POST' ? { writeTimeoutWhen: (req) => callsWritingTool(req.bytes) } : {}),
    });
  return [mcpRoute('POST'), { ...mcpRoute('GET'), close: () => handler?.close() }, mcpRoute('DELETE')];
}
