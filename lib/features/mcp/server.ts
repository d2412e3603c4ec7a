// One session's MCP server: the tools, each run as one Store call tied to the HTTP request that
// carried it, and its failure answered as an MCP tool error with the HTTP route's message.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { cancellable, storeErrorStatus } from '../../route_kit/store_route';
import { forRequest, type StoreSlot } from '../../route_kit/slot';
import { answerFor } from '../../http/errors';
import { readOnlyRefusal } from '../../http/hooks';
import type { Request } from '../../http/request';
import type { Store } from '../../store/store';
import type { FeatureOptions } from '../feature';
import { TOOLS, type Tool } from './tools';

const VERSION: string = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8')).version;

/**
 * The SDK hands `authInfo` from handleRequest to the tool handlers untouched: the one channel from
 * an HTTP request to the tool calls it carries, so their Store calls are cancelled with it (client
 * gone, deadline passed).
 */
export const carrying = (req: Request): AuthInfo => ({ token: '', clientId: 'tessera', scopes: [], extra: { request: req } });

const carried = (auth: AuthInfo | undefined): Request => {
  const req = auth?.extra?.request as Request | undefined;
  if (!req) throw new Error('an MCP tool call arrived without its HTTP request');
  return req;
};

const failure = (message: string): CallToolResult => ({ content: [{ type: 'text', text: message }], isError: true });

/** On a --namespaced server every tool also takes the namespace to work in (spec, "/mcp"). */
const NAMESPACE = z.string().describe('the namespace to work in (default: the one the /ns/{namespace}/mcp path names)').optional();

async function call(
  tool: Tool,
  slot: StoreSlot,
  { readOnly }: FeatureOptions,
  { namespace, ...args }: Record<string, unknown>,
  req: Request,
): Promise<CallToolResult> {
  try {
    if (readOnly && tool.writes(args)) throw readOnlyRefusal();
    req.writes = tool.writes(args);
    const run = async (store: Store) => cancellable(req, (o) => tool.run(store, args, o));
    // slot.get refuses a write the store cannot take; another namespace's store is checked the same way.
    const answer =
      namespace === undefined || !slot.using ? await run(slot.get(req)) : await slot.using(String(namespace), (store) => run(forRequest(req, store)));
    return { content: [{ type: 'text', text: Buffer.from(answer).toString('utf8') }] };
  } catch (err) {
    // Exactly what the HTTP route would answer: the same mapping, its `error` message.
    const { body, unexpected } = answerFor(err, req.id, storeErrorStatus);
    if (unexpected) req.log.error({ err, tool: tool.name }, 'MCP tool failed');
    return failure(String(body.error));
  }
}

/** A new MCP server offering every tool; each session gets its own (the SDK binds one transport to a server). */
export function mcpServer(slot: StoreSlot, options: FeatureOptions): McpServer {
  const server = new McpServer({ name: 'tessera', version: VERSION }, { capabilities: { tools: {} } });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      // Strict: an argument the tool does not know is refused, never silently dropped.
      {
        description: tool.description,
        inputSchema: z.strictObject(slot.using ? { ...tool.input, namespace: NAMESPACE } : tool.input),
        annotations: { readOnlyHint: tool.readOnly },
      },
      (args: Record<string, unknown>, extra) => call(tool, slot, options, args, carried(extra.authInfo)),
    );
  }
  return server;
}
