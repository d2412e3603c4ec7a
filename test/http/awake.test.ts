// awakeWhenBusy (lib/http/hooks.ts): a thread answering requests that queued behind its last answer
// stays awake for the next; one whose client waits for each answer before sending the next sleeps.
import test from 'ava';
import { awakeWhenBusy } from '../../lib/http/hooks';
import type { Request } from '../../lib/http/request';

const arriving = (startedAt: number) => ({ startedAt }) as Request;

test('an answer keeps the thread awake only when the request arrived within 50 us of the last answer, or before it', (t) => {
  let woken = 0;
  const hook = awakeWhenBusy(() => woken++);
  hook.onRequest?.(arriving(performance.now()), null);
  hook.onResponse?.(arriving(0), 200);
  t.is(woken, 0, 'the first request follows no answer');
  hook.onRequest?.(arriving(0), null);
  hook.onResponse?.(arriving(0), 200);
  t.is(woken, 1, 'a request that arrived before the last answer was sent queued behind it');
  hook.onRequest?.(arriving(performance.now() + 1), null);
  hook.onResponse?.(arriving(0), 200);
  t.is(woken, 1, 'a request arriving a millisecond after the last answer: the thread was idle');
});
