// `tessera import` of vector files (.fvecs, .bvecs, .npy): every row becomes a record {"id",
// "vector"} holding the very float32 values of the file, ids 0..n-1 or an --ids file's lines; a
// malformed file stops the import naming the row and its byte offset, every row before it written,
// and --resume goes on from there.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../lib/index';
import { prng } from '../core/helpers';
import { CLI, runCli, tempDir } from '../http/helpers';
import { until } from '../harness/until';
import { lastLine } from './jsonl_helpers';

type Rows = ArrayLike<number>[];

/** Rows as .fvecs (`values` float32) or .bvecs (`values` uint8): each an int32 dimension, then its values. */
function vecs(rows: Rows, values: 'float32' | 'uint8', dimensions = rows.map((r) => r.length)): Buffer {
  const width = values === 'float32' ? 4 : 1;
  return Buffer.concat(
    rows.map((row, i) => {
      const bytes = Buffer.alloc(4 + row.length * width);
      bytes.writeInt32LE(dimensions[i], 0);
      for (let j = 0; j < row.length; j++) {
        if (values === 'float32') bytes.writeFloatLE(row[j], 4 + 4 * j);
        else bytes[4 + j] = row[j];
      }
      return bytes;
    }),
  );
}

const fvecs = (rows: Rows, dimensions?: number[]) => vecs(rows, 'float32', dimensions);

interface NpyHeader {
  descr?: string;
  fortranOrder?: boolean;
  shape?: number[];
  version?: 1 | 2 | 3;
}

/** `rows` as an .npy file: the magic, a version, the header dict padded to 64 bytes, then the float32 values. */
function npy(rows: Rows, { descr = '<f4', fortranOrder = false, shape = [rows.length, rows[0].length], version = 1 }: NpyHeader = {}): Buffer {
  const dict = `{'descr': '${descr}', 'fortran_order': ${fortranOrder ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const prefix = 8 + (version === 1 ? 2 : 4);
  const header = `${dict}${' '.repeat(63 - ((prefix + dict.length) % 64))}\n`;
  const start = Buffer.alloc(prefix);
  start.write('\x93NUMPY', 'latin1');
  start[6] = version;
  if (version === 1) start.writeUInt16LE(header.length, 8);
  else start.writeUInt32LE(header.length, 8);
  return Buffer.concat([start, Buffer.from(header, 'latin1'), Buffer.from(Float32Array.from(rows.flatMap((r) => Array.from(r))).buffer)]);
}

function fileOf(name: string, bytes: Buffer | string): string {
  const file = path.join(tempDir(), name);
  writeFileSync(file, bytes);
  return file;
}

const newStore = () => path.join(tempDir(), 'store');

/** Euclidean, so the store keeps vectors as sent (Cosine would normalize them). */
const importVectors = (file: string, data: string, ...flags: string[]) =>
  runCli(['import', file, '--collection', 'c', '--data', data, '--distance', 'Euclidean', ...flags]);

/** The collection's vectors by id, each as the bits of its float32 values, so -0 and every last bit count. */
async function storedBits(data: string): Promise<Map<string, number[]>> {
  const store = await Store.open({ path: data });
  try {
    const records = await store.records('c');
    return new Map(records.map((r) => [r.id, bitsOf(r.vector ?? [])]));
  } finally {
    await store.close();
  }
}

const bitsOf = (values: ArrayLike<number>) => Array.from(new Uint32Array(Float32Array.from(values).buffer));

/** The map storedBits gives for `rows` under `ids` (default "0", "1", ...). */
const expectedBits = (rows: Rows, ids = rows.map((_, i) => String(i))) => new Map(rows.map((row, i) => [ids[i], bitsOf(row)]));

/** Exponent fields up to 2^55, so a vector's squared length fits a float32, as the store requires. */
const MAX_EXPONENT_FIELD = 127 + 55;

/** Rows of float32 values of random bits: signs, mantissas and exponents from the subnormals up to 2^55. */
function randomRows(count: number, dimension: number, seed = 7): Float32Array[] {
  const rand = prng(seed);
  const random = (below: number) => Math.floor(rand() * below);
  return Array.from({ length: count }, () => {
    const bits = Uint32Array.from({ length: dimension }, () => ((random(2) << 31) | (random(MAX_EXPONENT_FIELD + 1) << 23) | random(2 ** 23)) >>> 0);
    return new Float32Array(bits.buffer);
  });
}

const EDGE_VALUES = [0, -0, 0.1, -1.5, 1, 255, 123456789, 1e-45, 1.1754942e-38, 1.1754944e-38, 3.4e18, 16777217, 0.3, 2 / 3, 1e-7, 9.999999e8];

test('an .fvecs import writes every row with ids 0..n-1 and the exact floats', async (t) => {
  const rows = [...randomRows(50, 16), Float32Array.from(EDGE_VALUES)];
  const data = newStore();
  const r = await importVectors(fileOf('base.fvecs', fvecs(rows)), data);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(lastLine(r.stdout)).records, rows.length);
  t.deepEqual(await storedBits(data), expectedBits(rows));
});

test('.bvecs imports its bytes as floats', async (t) => {
  const rows = [
    [0, 1, 2, 255],
    [128, 64, 7, 9],
  ];
  const data = newStore();
  const r = await importVectors(fileOf('base.bvecs', vecs(rows, 'uint8')), data);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(await storedBits(data), expectedBits(rows));
});

test('an .npy 2-D <f4 array imports, in format versions 1.0, 2.0 and 3.0', async (t) => {
  const rows = randomRows(20, 8, 11);
  for (const version of [1, 2, 3] as const) {
    const data = newStore();
    const r = await importVectors(fileOf(`base${version}.npy`, npy(rows, { version })), data);
    t.is(r.code, 0, r.stderr);
    t.deepEqual(await storedBits(data), expectedBits(rows), `version ${version}`);
  }
});

test('an empty .npy array imports nothing, and the new store takes its dimension', async (t) => {
  const data = newStore();
  const r = await importVectors(fileOf('empty.npy', npy([], { shape: [0, 3] })), data);
  t.is(r.code, 0, r.stderr);
  t.is(JSON.parse(lastLine(r.stdout)).records, 0);
  const store = await Store.open({ path: data });
  t.is(store.dimension, 3);
  await store.close();
});

test('the format goes by the extension in any case', async (t) => {
  const rows = [[1, 2, 3]];
  const data = newStore();
  const r = await importVectors(fileOf('upper.FVECS', fvecs(rows)), data);
  t.is(r.code, 0, r.stderr);
  t.deepEqual(await storedBits(data), expectedBits(rows));
});

test('a --ids file names the records, line N+1 row N', async (t) => {
  const rows = randomRows(4, 3);
  const ids = ['alpha', 'β 2', 'with "quotes"', 'last'];
  const data = newStore();
  // A line end may be \r\n, and lines past the last row are left alone.
  const r = await importVectors(fileOf('base.fvecs', fvecs(rows)), data, '--ids', fileOf('ids.txt', `${ids.join('\r\n')}\nunused\n`));
  t.is(r.code, 0, r.stderr);
  t.deepEqual(await storedBits(data), expectedBits(rows, ids));
});

test('an --ids file shorter than the rows is an error naming the first row without an id, every row before it written', async (t) => {
  const rows = randomRows(5, 3);
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(rows));
  const idsFile = fileOf('ids.txt', 'a\nb\nc\n');
  const r = await importVectors(file, data, '--ids', idsFile, '--batch-size', '2');
  t.is(r.code, 1);
  t.is(lastLine(r.stderr), `tessera: ${file}: row 3 at byte ${3 * 16}: no id; ${idsFile} ends at line 3, and each row needs one`);
  t.deepEqual(await storedBits(data), expectedBits(rows.slice(0, 3), ['a', 'b', 'c']));
});

test('a blank line in the --ids file is an error naming the line', async (t) => {
  const data = newStore();
  const idsFile = fileOf('ids.txt', 'a\n \nc\n');
  const r = await importVectors(fileOf('base.fvecs', fvecs(randomRows(3, 3))), data, '--ids', idsFile);
  t.is(r.code, 1);
  t.is(lastLine(r.stderr), `tessera: ${idsFile}:2: a blank line; each line holds the id of one row (this one row 1's)`);
});

test('an --ids line that is not UTF-8 is an error naming the line', async (t) => {
  const idsFile = fileOf('ids.txt', Buffer.concat([Buffer.from('a\n'), Buffer.from([0xff, 0xfe]), Buffer.from('\nc\n')]));
  const r = await importVectors(fileOf('base.fvecs', fvecs(randomRows(3, 3))), newStore(), '--ids', idsFile);
  t.is(r.code, 1);
  t.is(lastLine(r.stderr), `tessera: ${idsFile}:2: not UTF-8 text`);
});

test('a vector file whose first row has no usable dimension is refused naming it, the store left unmade', async (t) => {
  const cases: [string, Buffer, string][] = [
    ['zero.fvecs', fvecs([[1, 2]], [0]), "row 0 at byte 0: dimension 0; a row's dimension must be 1 to 65536 (is this a .fvecs file?)"],
    [
      'huge.bvecs',
      Buffer.from([0xff, 0xff, 0xff, 0x7f, 1, 2]),
      "row 0 at byte 0: dimension 2147483647; a row's dimension must be 1 to 65536 (is this a .bvecs file?)",
    ],
  ];
  for (const [name, bytes, problem] of cases) {
    const file = fileOf(name, bytes);
    const data = newStore();
    const r = await importVectors(file, data);
    t.is(r.code, 1, name);
    t.is(lastLine(r.stderr), `tessera: ${file}: ${problem}`);
    t.false(existsSync(data), `${name}: no store is created`);
  }
  const short = fileOf('short.fvecs', Buffer.from([4, 0]));
  const r = await importVectors(short, newStore());
  t.is(lastLine(r.stderr), `tessera: ${short} ends inside row 0 at byte 0: its dimension needs 2 bytes more`);
});

test('an .npy file of another format version, or cut inside its header, is refused naming it', async (t) => {
  const good = npy([[1, 2, 3]]);
  const v4 = Buffer.from(good);
  v4[6] = 4;
  const cases: [string, Buffer, string][] = [
    ['v4.npy', v4, 'NumPy format version 4.0; versions 1.0, 2.0 and 3.0 are read'],
    ['cut.npy', good.subarray(0, 30), `the file ends inside its ${good.length - 12}-byte header, at byte 30`],
  ];
  for (const [name, bytes, problem] of cases) {
    const file = fileOf(name, bytes);
    const r = await importVectors(file, newStore());
    t.is(r.code, 1, name);
    t.is(lastLine(r.stderr), `tessera: ${file}: ${problem}`);
  }
});

test('a row with another dimension is an error naming its row and byte offset, every row before it written', async (t) => {
  const rows = [...randomRows(12, 4), [1, 2], ...randomRows(2, 4)];
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(rows));
  const r = await importVectors(file, data, '--batch-size', '5');
  t.is(r.code, 1);
  t.is(lastLine(r.stderr), `tessera: ${file}: row 12 at byte ${12 * 20}: dimension 2, but the file's first row has 4`);
  t.deepEqual(await storedBits(data), expectedBits(rows.slice(0, 12)));
  t.true(existsSync(`${file}.tessera-import`), 'the position stays for --resume');
});

test('a file that ends inside a row is an error naming the row, its offset and the bytes missing', async (t) => {
  const rows = randomRows(3, 4);
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(rows).subarray(0, 2 * 20 + 7));
  const r = await importVectors(file, data);
  t.is(r.code, 1);
  t.is(lastLine(r.stderr), `tessera: ${file} ends inside row 2 at byte 40: the row needs 13 bytes more`);
  t.deepEqual(await storedBits(data), expectedBits(rows.slice(0, 2)));
});

test('an .npy file that ends before its shape says is an error naming the row', async (t) => {
  const bytes = npy(randomRows(3, 4));
  const file = fileOf('short.npy', bytes.subarray(0, bytes.length - 16));
  const r = await importVectors(file, newStore());
  t.is(r.code, 1);
  t.is(lastLine(r.stderr), `tessera: ${file} ends at byte ${bytes.length - 16}, before row 2: its shape has 3 rows`);
});

test('a NaN or infinite value is an error naming its row and place', async (t) => {
  for (const [value, name] of [
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ] as const) {
    const rows = [
      [1, 2, 3],
      [4, value, 6],
    ];
    const file = fileOf('base.fvecs', fvecs(rows));
    const r = await importVectors(file, newStore());
    t.is(r.code, 1);
    t.is(lastLine(r.stderr), `tessera: ${file}: row 1 at byte 16: value 1 is ${name}; vectors must be finite`);
  }
});

test('an .npy file other than a 2-D little-endian float32 C-order array is refused naming what it is', async (t) => {
  const rows = [[1, 2, 3]];
  const cases: [Buffer, string][] = [
    [npy(rows, { descr: '<f8' }), "dtype '<f8'; only '<f4' (little-endian float32) is read: save array.astype('<f4')"],
    [npy(rows, { descr: '>f4' }), "dtype '>f4'; only '<f4' (little-endian float32) is read: save array.astype('<f4')"],
    [npy(rows, { fortranOrder: true }), 'fortran_order True (column-major); only C order (fortran_order False) is read: save np.ascontiguousarray(array)'],
    [npy(rows, { shape: [1, 3, 1] }), 'shape (1, 3, 1); only a 2-D shape (rows, dimension) of whole numbers is read'],
    [npy(rows, { shape: [3] }), 'shape (3,); only a 2-D shape (rows, dimension) of whole numbers is read'],
    [Buffer.from('not numpy at all'), 'not a NumPy .npy file: it does not start with the magic bytes \\x93NUMPY'],
    [Buffer.concat([npy(rows), Buffer.alloc(4)]), `4 bytes after its last row, which ends at byte ${npy(rows).length} (shape (1, 3))`],
  ];
  for (const [bytes, problem] of cases) {
    const file = fileOf('bad.npy', bytes);
    const r = await importVectors(file, newStore());
    t.is(r.code, 1, problem);
    t.is(lastLine(r.stderr), `tessera: ${file}: ${problem}`);
  }
});

test('--resume after a failure continues from the saved position and writes every row once', async (t) => {
  const rows = randomRows(10, 4);
  const broken = rows.map((r, i) => (i === 7 ? Float32Array.of(r[0], Number.NaN, r[2], r[3]) : r));
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(broken));
  const stopped = await importVectors(file, data, '--batch-size', '3');
  t.is(stopped.code, 1);
  t.deepEqual(JSON.parse(readFileSync(`${file}.tessera-import`, 'utf8')), {
    collection: 'c',
    data: path.resolve(data),
    offset: 7 * 20,
    row: 7,
    sha256: JSON.parse(readFileSync(`${file}.tessera-import`, 'utf8')).sha256,
  });
  writeFileSync(file, fvecs(rows));
  const resumed = await importVectors(file, data, '--batch-size', '3', '--resume');
  t.is(resumed.code, 0, resumed.stderr);
  t.is(JSON.parse(lastLine(resumed.stdout)).records, 3, 'rows 7 to 9, not the file again');
  t.deepEqual(await storedBits(data), expectedBits(rows));
  // A row written twice would leave a superseded row behind.
  const stats = JSON.parse((await runCli(['stats', '--data', data])).stdout);
  t.like(stats.footprint, { rows: 10, dead_rows: 0 });
  t.false(existsSync(`${file}.tessera-import`), 'a finished import leaves no position behind');
});

test('SIGKILL in the middle of an import, then --resume: every row is there once, at most one batch written again', async (t) => {
  const rows = randomRows(100_000, 8, 11);
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(rows));
  const saved = `${file}.tessera-import`;
  const proc = spawn(process.execPath, [CLI, 'import', file, '--collection', 'c', '--data', data, '--distance', 'Euclidean', '--batch-size', '100'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  // Killed once a batch is durable and its position saved: mid-file, at whatever step it is in then.
  await until(() => existsSync(saved) || proc.exitCode !== null, 'the first batch is saved');
  proc.kill('SIGKILL');
  await exited;
  t.is(proc.signalCode, 'SIGKILL', 'the import was still running');
  const resumed = await importVectors(file, data, '--batch-size', '100', '--resume');
  t.is(resumed.code, 0, resumed.stderr);
  t.deepEqual(await storedBits(data), expectedBits(rows));
  const stats = JSON.parse((await runCli(['stats', '--data', data])).stdout);
  t.is(stats.footprint.doc_count, rows.length);
  t.log(`rows written again: ${stats.footprint.dead_rows}`);
  t.true(stats.footprint.dead_rows <= 100, `a batch durable before the kill but not yet saved is written again, no more: ${stats.footprint.dead_rows}`);
});

test('a crash right after a batch is durable and published, before the import hears of it: --resume writes that batch again and no other', async (t) => {
  const rows = randomRows(1000, 8, 12);
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(rows));
  const args = ['import', file, '--collection', 'c', '--data', data, '--distance', 'Euclidean', '--batch-size', '100'];
  const crashed = await runCli(args, { TESSERA_CRASH_AT: 'write-published@5' });
  t.is(crashed.code, null, crashed.stderr);
  t.regex(crashed.stderr, /crash point write-published/);
  t.is(JSON.parse(readFileSync(`${file}.tessera-import`, 'utf8')).row, 400, 'the position after the fourth batch, the last one acknowledged');
  const resumed = await runCli([...args, '--resume']);
  t.is(resumed.code, 0, resumed.stderr);
  t.is(JSON.parse(lastLine(resumed.stdout)).records, 600);
  t.deepEqual(await storedBits(data), expectedBits(rows));
  const stats = JSON.parse((await runCli(['stats', '--data', data])).stdout);
  t.like(stats.footprint, { doc_count: 1000, dead_rows: 100 });
});

for (const point of ['checkpoint-manifest-written', 'seal-published']) {
  test(`a crash while an import's batch seals the memory segment (${point}): --resume writes that batch again and every row is there once`, async (t) => {
    // A memory segment seals at 4,096 rows when an index is configured: the 41st batch of 100.
    const rows = randomRows(6000, 8, 13);
    const data = newStore();
    const file = fileOf('base.fvecs', fvecs(rows));
    const args = ['import', file, '--collection', 'c', '--data', data, '--distance', 'Euclidean', '--batch-size', '100'];
    const crashed = await runCli(args, { TESSERA_CRASH_AT: point });
    t.is(crashed.code, null, crashed.stderr);
    t.regex(crashed.stderr, new RegExp(`crash point ${point}`));
    t.is(JSON.parse(readFileSync(`${file}.tessera-import`, 'utf8')).row, 4000, 'the position after the 40th batch, the last one acknowledged');
    const resumed = await runCli([...args, '--resume']);
    t.is(resumed.code, 0, resumed.stderr);
    t.deepEqual(await storedBits(data), expectedBits(rows));
    const stats = JSON.parse((await runCli(['stats', '--data', data])).stdout);
    t.like(stats.footprint, { doc_count: 6000, dead_rows: 100 });
  });
}

test('--resume refuses a vector file changed before the saved row', async (t) => {
  const rows = [...randomRows(4, 4), [Number.NaN, 0, 0, 0]];
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs(rows));
  t.is((await importVectors(file, data)).code, 1);
  writeFileSync(file, fvecs([[9, 9, 9, 9], ...rows.slice(1, 4)]));
  const r = await importVectors(file, data, '--resume');
  t.is(r.code, 2);
  t.is(r.stderr, `tessera: --resume: ${file} changed before row 4, where the last import stopped; run without --resume to import it all\n`);
});

test("a new store takes the file's dimension", async (t) => {
  const data = newStore();
  const r = await runCli(['import', fileOf('base.bvecs', vecs([[1, 2, 3, 4, 5]], 'uint8')), '--collection', 'c', '--data', data]);
  t.is(r.code, 0, r.stderr);
  const store = await Store.open({ path: data });
  t.is(store.dimension, 5);
  await store.close();
});

test("a store of another dimension, or another --dimension, refuses the file naming the file's dimension", async (t) => {
  const data = newStore();
  const file = fileOf('base.fvecs', fvecs([[1, 2, 3, 4]]));
  const store = await Store.open({ path: data, dimension: 3, distance: 'Euclidean' });
  await store.close();
  const r = await importVectors(file, data);
  t.is(r.code, 2);
  t.regex(lastLine(r.stderr), new RegExp(`^tessera: ${file} has dimension 4: .*dimension 3`));
  const flagged = await importVectors(file, newStore(), '--dimension', '3');
  t.is(flagged.code, 2);
  t.is(lastLine(flagged.stderr), `tessera: --dimension 3, but ${file} has dimension 4`);
});

test('--ids is refused for a JSON lines file', async (t) => {
  const file = fileOf('records.jsonl', '{"id":"a"}\n');
  const r = await runCli(['import', file, '--collection', 'c', '--ids', file]);
  t.is(r.code, 2);
  t.is(r.stderr, `tessera: --ids names the rows of a vector file (.fvecs, .bvecs, .npy); the records of ${file} carry their own ids\n`);
});
