// Request deadlines: one arrival-ordered list per timeout, one timer for its head.
import test from 'ava';
import { Deadlines } from '../../lib/http/deadlines';

/** A target that records its expiry and resolves `expired` when it happens. */
function target(name: string, log: string[]) {
  let resolve!: () => void;
  const expired = new Promise<void>((r) => (resolve = r));
  return {
    expired,
    expire() {
      log.push(name);
      resolve();
    },
  };
}

test('deadlines expire in arrival order, and a cancelled one never does, the head included', async (t) => {
  const deadlines = new Deadlines(20);
  const log: string[] = [];
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => target(name, log));
  const entries = [a, b, c, d].map((x) => deadlines.add(x));
  // The head and a middle entry settle first: the timer armed for the head must still reach b and d.
  entries[0].cancel();
  entries[2].cancel();
  await d.expired;
  t.deepEqual(log, ['b', 'd']);
});

test('a deadline added after the list emptied arms the timer again; cancelling twice is harmless', async (t) => {
  const deadlines = new Deadlines(5);
  const log: string[] = [];
  const first = target('first', log);
  deadlines.add(first);
  await first.expired;
  const second = target('second', log);
  const entry = deadlines.add(second);
  await second.expired;
  entry.cancel();
  entry.cancel();
  t.deepEqual(log, ['first', 'second']);
});
