// MCP test helpers: the SDK's own client over HTTP against `tessera serve`, and a bare session
// driven with fetch for what the client hides (the GET event stream, DELETE).
import type { ExecutionContext } from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '../http/helpers';

/** A connected SDK client; closed when the test ends. */
export async function connect(t: ExecutionContext, server: Pick<Server, 'url'>, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'tessera-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  t.teardown(() => client.close());
  return client;
}

export interface ToolAnswer {
  isError: boolean;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tool's JSON answer; each test reads the fields it asserts
  json: any;
}

/** Calls a tool and reads its one text content (JSON when it parses). */
export async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const [content] = result.content as { type: string; text: string }[];
  let json: unknown;
  try {
    json = JSON.parse(content.text);
  } catch {
    json = undefined;
  }
  return { isError: result.isError === true, text: content.text, json };
}

/** What a Streamable HTTP client sends on every POST. */
export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Headers of a request inside a session. */
export const inSession = (id: string): Record<string, string> => ({ 'mcp-session-id': id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });

/** Initializes a session with plain fetch; resolves its id. */
export async function bareSession(server: Pick<Server, 'url'>): Promise<string> {
  const init = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bare', version: '1' } },
    }),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize answered ${init.status} without a session id`);
  const initialized = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...inSession(id) },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return id;
}

/** Opens the session's GET event stream; `ended` resolves once its body ends (true when cleanly); `cancel` leaves it. */
export async function eventStream(server: Pick<Server, 'url'>, id: string) {
  const res = await fetch(`${server.url}/mcp`, { headers: { accept: 'text/event-stream', ...inSession(id) } });
  const reader = res.body!.getReader();
  const ended = (async () => {
    try {
      while (!(await reader.read()).done);
      return true;
    } catch {
      return false;
    }
  })();
  return { res, ended, cancel: () => reader.cancel() };
}
