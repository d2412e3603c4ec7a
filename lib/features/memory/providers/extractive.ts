// extractive[:N], an offline summarizer: extractive, not abstractive. It keeps the N sentences most
// central to the text, in their original order. Centrality is the cosine between a sentence's TF-IDF
// vector and the whole text's (the "centroid" method): words found in every sentence weigh little,
// words the text keeps coming back to weigh much.
import type { Summarizer } from './types';
import { words } from './words';

// Made on first use: making one loads ICU's break rules, about 20 ms of a server's start.
let sentenceSegmenter: Intl.Segmenter | undefined;

/**
 * A segment ending in one of these (or in an initial) does not end a sentence: Intl.Segmenter runs
 * ICU's rules without its abbreviation list, so "Dr. Smith" would otherwise come out as two sentences.
 */
const ABBREVIATION = /(?:^|[\s(])(?:[A-Z]|Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|No|vs|etc|cf|Inc|Ltd|Co|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.$/;

export class ExtractiveSummarizer implements Summarizer {
  readonly identity: string;

  constructor(private readonly sentences: number) {
    this.identity = `extractive:${sentences}`;
  }

  async summarize(text: string, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    const all = sentences(text);
    if (all.length <= this.sentences) return all.join(' ');
    const scores = centrality(all.map(words));
    const best = all
      .map((_, i) => i)
      .sort((a, b) => scores[b] - scores[a] || a - b)
      .slice(0, this.sentences)
      .sort((a, b) => a - b);
    return best.map((i) => all[i]).join(' ');
  }
}

/** The text's sentences, trimmed, without empty ones. */
function sentences(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  sentenceSegmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  for (const { segment } of sentenceSegmenter.segment(text)) {
    pending += segment;
    if (ABBREVIATION.test(pending.trimEnd())) continue;
    if (pending.trim() !== '') out.push(pending.trim());
    pending = '';
  }
  if (pending.trim() !== '') out.push(pending.trim());
  return out;
}

/** Cosine of each sentence's TF-IDF vector with the sum of them all. */
function centrality(sentences: string[][]): number[] {
  const counts = sentences.map((tokens) => {
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  const df = new Map<string, number>();
  for (const tf of counts) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  // Smoothed so a word in every sentence still weighs a little above zero.
  const idf = (t: string) => Math.log((1 + sentences.length) / (df.get(t) ?? 1));
  const vectors = counts.map((tf) => new Map(Array.from(tf, ([t, n]) => [t, n * idf(t)])));
  const centroid = new Map<string, number>();
  for (const v of vectors) for (const [t, w] of v) centroid.set(t, (centroid.get(t) ?? 0) + w);
  const norm = (v: Map<string, number>) => Math.sqrt(Array.from(v.values()).reduce((s, w) => s + w * w, 0));
  const centroidNorm = norm(centroid);
  return vectors.map((v) => {
    let dot = 0;
    for (const [t, w] of v) dot += w * (centroid.get(t) ?? 0);
    const n = norm(v) * centroidNorm;
    return n === 0 ? 0 : dot / n;
  });
}
