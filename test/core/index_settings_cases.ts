// The refused ANN and quantization settings, by rule, in the spec's names (ef_search): the library
// test spells them as open options (efSearch), the CLI test as flags (--ef-search). Each case names
// the setting the refusal must name and the value it must quote.
import type { Distance } from '../../lib/index';

export interface RefusedCase {
  rule: string;
  /** Settings by spec name, as the user typed them. */
  settings: Record<string, string>;
  distance?: Distance;
  /** The setting the message names, and the value it quotes. */
  names: string;
  quotes: string;
}

const hnsw = { ann: 'hnsw' };
const ivf = { ann: 'ivf' };
const int8 = { quantization: 'int8' };

/** [setting, kind settings it needs, below its range, above its range]; ranges as README documents them. */
const RANGES: [string, Record<string, string>, string | null, string][] = [
  ['m', hnsw, '1', '129'],
  ['ef_construction', hnsw, '0', '10001'],
  ['ef_search', hnsw, '0', '10001'],
  ['n_lists', ivf, null, '65537'],
  ['n_probe', ivf, '0', '65537'],
  ['overscan', hnsw, '0', '101'],
  ['seed', ivf, null, '9007199254740992'],
  ['rescore', int8, '0', '1001'],
];

const outOfRange: RefusedCase[] = RANGES.flatMap(([name, kind, low, high]) =>
  [low, high].filter((v) => v !== null).map((v) => ({ rule: 'out of range', settings: { ...kind, [name]: v }, names: name, quotes: v })),
);

const NOT_INTEGERS: [string, Record<string, string>, string][] = [
  ['m', hnsw, 'abc'],
  ['ef_search', hnsw, '1.5'],
  ['n_probe', ivf, '1e3'],
  ['n_lists', ivf, '-1'],
  ['overscan', ivf, ''],
  ['seed', hnsw, '0x10'],
  ['rescore', int8, '+4'],
  ['ef_construction', hnsw, ' 200'],
];

const notInteger: RefusedCase[] = NOT_INTEGERS.map(([name, kind, v]) => ({ rule: 'not an integer', settings: { ...kind, [name]: v }, names: name, quotes: v }));

const unknownKind: RefusedCase[] = [
  ['ann', 'HNSW'],
  ['ann', 'flat'],
  ['ann', ''],
  ['quantization', 'Int8'],
  ['quantization', 'pq'],
].map(([name, v]) => ({ rule: 'unknown kind', settings: { [name]: v }, names: name, quotes: v }));

const NOT_APPLYING: [string, Record<string, string>, string][] = [
  ['n_probe', hnsw, '4'],
  ['n_lists', hnsw, '16'],
  ['m', ivf, '32'],
  ['ef_search', { ann: 'none' }, '100'],
  ['overscan', { ann: 'none' }, '2'],
  ['seed', { ann: 'none' }, '7'],
  ['rescore', { quantization: 'none' }, '8'],
  ['rescore', { quantization: 'none', ann: 'hnsw' }, '8'],
];

const notApplying: RefusedCase[] = NOT_APPLYING.map(([name, kind, v]) => ({
  rule: 'a knob that does not apply to the kind',
  settings: { ...kind, [name]: v },
  names: name,
  quotes: v,
}));

const crossChecks: RefusedCase[] = [
  { rule: 'ef_construction below m', settings: { ann: 'hnsw', m: '64', ef_construction: '32' }, names: 'ef_construction', quotes: '32' },
  { rule: 'binary on Euclidean', settings: { quantization: 'binary' }, distance: 'Euclidean', names: 'quantization', quotes: 'binary' },
  { rule: 'binary on DotProduct', settings: { quantization: 'binary' }, distance: 'DotProduct', names: 'quantization', quotes: 'binary' },
];

export const REFUSED: RefusedCase[] = [...outOfRange, ...notInteger, ...unknownKind, ...notApplying, ...crossChecks];

/** How the value appears in a message: quoted, except a kind a message repeats bare (quantization binary). */
export const quoted = (c: RefusedCase) => (c.names === 'quantization' && c.quotes === 'binary' ? c.quotes : `"${c.quotes}"`);
