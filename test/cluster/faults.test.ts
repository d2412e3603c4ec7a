// Failover under load through `tessera serve` against a real radosgw (test/harness/failover_trials.ts):
// the writer is stopped right after a publish, stopped right after a lease renewal (the latest a
// standby can take over), stopped at a random moment, or killed, trial after trial, while clients
// write to every writer candidate. A writer paused past its lease once resumed
// fenced yet went on collecting garbage by its own stale CURRENT, deleting what its successor had
// published: acknowledged writes lost, readers unable to refresh or start.
import { faultSchedule, LEASE_TTL_MS, runFailoverTrials, type Spawn } from '../harness/failover_trials';
import { radosgwForFile } from '../harness/radosgw';
import { startServer } from '../http/helpers';

const rgw = radosgwForFile();
const TRIALS = 20;
/** Trials per test, each test its own cluster: five keep one well inside AVA's 5-minute timeout. */
const TRIALS_PER_TEST = 5;
/**
 * From the fault to the standby's first acknowledged write: the lease's TTL (and up to a fifth
 * more), then about 0.15 s of takeover. The target, TTL + 2 s, holds the median of each test's
 * trials; a single trial gets two TTLs more, since on a shared 2-core machine a disk stall or the
 * rest of the suite can hold one back by seconds (7.6 s once while apt unpacked packages beside
 * it, 6.3 s once in a full CI-mode run, of about 150 trials). bench:cluster holds every trial to
 * the target (failover_trials.failover_s.max). The code before the fix, which read a log backlog
 * chunk by chunk, went past the single-trial bound in 3 to 6 of 20 trials a run (up to 29 s).
 */
const FAILOVER_TARGET_MS = LEASE_TTL_MS + 2000;
const FAILOVER_BOUND_MS = 3 * LEASE_TTL_MS + 2000;

const spawn: Spawn = (args, env) => startServer(args, env, { waitReady: false });
const schedule = faultSchedule(TRIALS);

for (let first = 0; first < TRIALS; first += TRIALS_PER_TEST) {
  const faults = schedule.slice(first, first + TRIALS_PER_TEST);
  const trials = `trials ${first + 1}-${first + faults.length} of ${TRIALS}`;
  // Serial: failover is timed, and two clusters at once would share the cores.
  rgw.serial(
    `a writer stopped or killed under load loses no acknowledged write (new writer, refreshed reader, fresh restore), deletes nothing CURRENT names, and acknowledges nothing once resumed; failover within TTL + 2 s at the median (${trials})`,
    async (t) => {
      const { bucket } = await rgw.bucket(t);
      const result = await runFailoverTrials({ gateway: rgw.gateway(), bucket, spawn, faults, log: (line) => t.log(line) });
      t.log(`failover ms: ${result.trials.map((trial) => `${trial.kind} ${trial.failover_ms}`).join(', ')}`);
      const losses = result.trials.map(({ kind, lost_on_writer, lost_on_reader, lost_on_fresh, late_acks_by_old_writer }) => ({
        kind,
        lost_on_writer,
        lost_on_reader,
        lost_on_fresh,
        late_acks_by_old_writer,
      }));
      t.deepEqual(
        losses,
        faults.map((kind) => ({ kind, lost_on_writer: 0, lost_on_reader: 0, lost_on_fresh: 0, late_acks_by_old_writer: 0 })),
      );
      const deleted = result.deleted_while_named_keys;
      t.is(deleted.length, 0, `objects deleted while the published CURRENT named them, e.g. ${deleted.slice(0, 5).join(' ')}`);
      const failovers = result.trials.map((trial) => trial.failover_ms).sort((a, b) => a - b);
      t.true(failovers[Math.floor(failovers.length / 2)] <= FAILOVER_TARGET_MS, `median failover past ${FAILOVER_TARGET_MS} ms`);
      const slow = result.trials.filter((trial) => trial.failover_ms > FAILOVER_BOUND_MS).map(({ kind, failover_ms }) => ({ kind, failover_ms }));
      t.deepEqual(slow, [], `failover past ${FAILOVER_BOUND_MS} ms`);
    },
  );
}
