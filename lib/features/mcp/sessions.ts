// MCP sessions (stateful Streamable HTTP): one SDK transport and MCP server per session id. A
// session is made by an initialize request and lives until the client DELETEs it, its transport
// closes, or it is the least recently used one when the table is full.
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/** Sessions kept at most: a client that never DELETEs its session must not grow the table forever. */
const MAX_SESSIONS = 1000;

export class Sessions {
  /** By session id, least recently used first. */
  private readonly live = new Map<string, WebStandardStreamableHTTPServerTransport>();

  constructor(private readonly makeServer: () => McpServer) {}

  /** The transport of a session, or undefined for an unknown (or ended) one. */
  find(id: string): WebStandardStreamableHTTPServerTransport | undefined {
    const transport = this.live.get(id);
    if (transport) {
      this.live.delete(id);
      this.live.set(id, transport);
    }
    return transport;
  }

  /**
   * A fresh transport for an initialize request. It joins the table only once the SDK accepted
   * the initialize (onsessioninitialized), so a refused one is simply dropped.
   */
  async open(): Promise<WebStandardStreamableHTTPServerTransport> {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => this.admit(id, transport),
      // The HTTP layer has refused bodies above --max-body-bytes already.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    });
    // Set before connect: the SDK's Protocol keeps an onclose it finds and calls it first.
    transport.onclose = () => {
      if (transport.sessionId !== undefined && this.live.get(transport.sessionId) === transport) this.live.delete(transport.sessionId);
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

  private admit(id: string, transport: WebStandardStreamableHTTPServerTransport): void {
    if (this.live.size >= MAX_SESSIONS) {
      const [, oldest] = this.live.entries().next().value as [string, WebStandardStreamableHTTPServerTransport];
      void oldest.close();
    }
    this.live.set(id, transport);
  }
}
