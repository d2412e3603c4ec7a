// MCP sessions (stateful Streamable HTTP): one SDK transport and MCP server per session id. A
// session is made by an initialize request and lives until the client DELETEs it, its transport
// closes, or it is the least recently used one when the table is full.
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** Sessions kept at most: a client that never DELETEs its session must not grow the table forever. */
const MAX_SESSIONS = 1000;

/** A session is found only in the store scope that opened it (StoreSlot.scope: a namespace). */
const keyOf = (scope: string, id: string) => `${scope}/${id}`;

export class Sessions {
  /** By scope and session id, least recently used first. */
  private readonly live = new Map<string, WebStandardStreamableHTTPServerTransport>();

  /** `idPrefix` starts every session id made here: the HTTP thread's number when several serve (`1-<uuid>`, messages.ts' ownerOf). */
  constructor(
    private readonly makeServer: () => McpServer,
    private readonly idPrefix = '',
  ) {}

  /** The transport of a session, or undefined for an unknown (or ended) one. */
  find(scope: string, id: string): WebStandardStreamableHTTPServerTransport | undefined {
    const key = keyOf(scope, id);
    const transport = this.live.get(key);
    if (transport) {
      this.live.delete(key);
      this.live.set(key, transport);
    }
    return transport;
  }

  /**
   * A fresh transport for an initialize request. It joins the table only once the SDK accepted
   * the initialize (onsessioninitialized), so a refused one is simply dropped.
   */
  async open(scope: string): Promise<WebStandardStreamableHTTPServerTransport> {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => `${this.idPrefix}${randomUUID()}`,
      onsessioninitialized: (id) => this.admit(keyOf(scope, id), transport),
      // The HTTP layer has refused bodies above --max-body-bytes already.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    });
    // Set before connect: the SDK's Protocol keeps an onclose it finds and calls it first.
    transport.onclose = () => {
      const key = transport.sessionId === undefined ? undefined : keyOf(scope, transport.sessionId);
      if (key !== undefined && this.live.get(key) === transport) this.live.delete(key);
    };
    await this.makeServer().connect(transport);
    return transport;
  }

  /**
   * Ends every session's GET event stream cleanly, for the server's shutdown. Streams answering a
   * request end by themselves once their response is sent, so in-flight tool calls still finish.
   */
  endStreams(): void {
    for (const transport of this.live.values()) transport.closeStandaloneSSEStream();
  }

  private admit(key: string, transport: WebStandardStreamableHTTPServerTransport): void {
    if (this.live.size >= MAX_SESSIONS) {
      const [, oldest] = this.live.entries().next().value as [string, WebStandardStreamableHTTPServerTransport];
      void oldest.close();
    }
    this.live.set(key, transport);
  }
}
