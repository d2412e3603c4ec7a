// A summarizer over a chat API: the prompt and the check of the answer, whatever the API.
import type { HttpClient } from './transport';
import type { Summarizer } from './types';

const SUMMARY_PROMPT = 'Summarize the text the user sends in a few concise sentences, in the language of the text. Answer with the summary only.';

/** The chat messages asking for a summary of text. */
export const summaryMessages = (text: string) => [
  { role: 'system', content: SUMMARY_PROMPT },
  { role: 'user', content: text },
];

/** One chat API: its request, and where the reply is in its answer. */
export interface SummarizeApi {
  path: string;
  body(text: string): unknown;
  /** The reply text (a string when the answer has the expected shape). */
  reply(answer: unknown): unknown;
  shape: string;
}

export class HttpSummarizer implements Summarizer {
  readonly identity: string;

  constructor(
    private readonly client: HttpClient,
    private readonly api: SummarizeApi,
  ) {
    this.identity = client.identity;
  }

  async summarize(text: string, signal?: AbortSignal): Promise<string> {
    const answer = await this.client.post(this.api.path, this.api.body(text), signal);
    const reply = this.api.reply(answer);
    if (typeof reply !== 'string') throw this.client.malformed(this.api.shape, answer);
    return reply.trim();
  }
}
