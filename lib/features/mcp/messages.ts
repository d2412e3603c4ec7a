// What the /mcp routes read of a request before the SDK does: the HTTP thread its session lives on,
// its JSON-RPC messages, and whether one calls a tool that writes. Light to load: the tools'
// schemas load only for a body naming a tool call.

/**
 * The HTTP thread a session id was made on (`1-<uuid>`, Sessions' prefix) when several serve; a
 * plain UUID's first group is no thread's number.
 */
export const ownerOf = (id: string | undefined): number => (id === undefined ? Number.NaN : Number(id.slice(0, id.indexOf('-'))));

/** The JSON-RPC messages of a POST body (one, or a batch); null for a body that is not JSON. */
export function messagesOf(bytes: Buffer): unknown[] | null {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return null;
  }
}

/** Whether a POST calls a tool that writes: judged on --write-timeout, like the write routes. */
export function callsWritingTool(bytes: Buffer): boolean {
  if (!bytes.includes('"tools/call"')) return false;
  const { TOOLS } = require('./tools') as typeof import('./tools');
  return (messagesOf(bytes) ?? []).some((m) => {
    const { method, params } = (m ?? {}) as { method?: unknown; params?: { name?: unknown; arguments?: Record<string, unknown> } };
    return method === 'tools/call' && TOOLS.some((t) => t.name === params?.name && t.writes(params?.arguments ?? {}));
  });
}
