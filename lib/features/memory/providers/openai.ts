// OpenAI and OpenAI-compatible servers (vLLM, LiteLLM, LocalAI...): embeddings and chat completions.
import { byIndex, field } from './answers';
import type { EmbedApi } from './embed';
import { type SummarizeApi, summaryMessages } from './summarize';

export const openaiEmbed = (model: string): EmbedApi => ({
  path: '/v1/embeddings',
  body: (texts) => ({ model, input: texts }),
  // The API may answer out of order: each item carries the index of its input.
  vectors: (answer, count) => byIndex(field(answer, 'data'), count)?.map((item) => field(item, 'embedding')),
  shape: '{data: [{index, embedding}]}',
});

export const openaiSummarize = (model: string): SummarizeApi => ({
  path: '/v1/chat/completions',
  body: (text) => ({ model, messages: summaryMessages(text) }),
  reply: (answer) => {
    const choices = field(answer, 'choices');
    return Array.isArray(choices) ? field(field(choices[0], 'message'), 'content') : undefined;
  },
  shape: '{choices: [{message: {content}}]}',
});
