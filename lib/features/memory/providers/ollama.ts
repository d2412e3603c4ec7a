// Ollama's native API: /api/embed and /api/chat.
import { field } from './answers';
import type { EmbedApi } from './embed';
import { type SummarizeApi, summaryMessages } from './summarize';

export const ollamaEmbed = (model: string): EmbedApi => ({
  path: '/api/embed',
  body: (texts) => ({ model, input: texts }),
  vectors: (answer) => {
    const embeddings = field(answer, 'embeddings');
    return Array.isArray(embeddings) ? embeddings : undefined;
  },
  shape: '{embeddings: [[...]]}',
});

export const ollamaSummarize = (model: string): SummarizeApi => ({
  path: '/api/chat',
  // Without stream: false Ollama answers with one JSON object per token.
  body: (text) => ({ model, messages: summaryMessages(text), stream: false }),
  reply: (answer) => field(field(answer, 'message'), 'content'),
  shape: '{message: {content}}',
});
