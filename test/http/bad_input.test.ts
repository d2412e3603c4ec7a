import test, { type ExecutionContext } from 'ava';
import { type Server, call, openRequest, sleep, startServer, unitRecords, until } from './helpers';

let server: Server;
test.before(async () => {
  server = await startServer();
  await call(server, 'POST', '/collections/kept/upsert', { records: unitRecords(5, 4) });
});
test.after.always(() => server?.stop());

/** What must not move when a request is refused. */
async function snapshot() {
  const [records, versions, meta, aliases] = await Promise.all([
    call(server, 'GET', '/collections/kept/records'),
    call(server, 'GET', '/versions'),
    call(server, 'GET', '/collections/kept/meta'),
    call(server, 'GET', '/aliases'),
  ]);
  return { records: records.text, version: versions.json.commit_version, meta: meta.text, aliases: aliases.text };
}

const valid = JSON.stringify({ records: [{ id: 'new', vector: [1, 0, 0, 0], attrs: { k: { Str: 'v' } } }] });
const invalidUtf8 = Buffer.concat([Buffer.from('{"records":[{"id":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","vector":[1,0,0,0]}]}')]);

/** Bodies no route can accept: not JSON at all, or not a whole JSON text. */
const UNPARSABLE: [string, string | Buffer][] = [
  ['empty', ''],
  ['malformed', '{"records": ['],
  ['not JSON', 'records=1'],
  ['deep nesting', `{"records":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
  ['invalid UTF-8', invalidUtf8],
  ['trailing garbage', `${valid}x`],
  ...[1, 10, 40, valid.length - 1].map((n): [string, string] => [`truncated at ${n}`, valid.slice(0, n)]),
];

const BAD_UPSERTS: [string, string][] = [
  ['null', 'null'],
  ['array', '[]'],
  ['records not an array', '{"records": "x"}'],
  ['id not a string', '{"records":[{"id":1,"vector":[1,0,0,0]}]}'],
  ['vector too short', '{"records":[{"id":"x","vector":[1,0]}]}'],
  ['vector of strings', '{"records":[{"id":"x","vector":["1","0","0","0"]}]}'],
  ['attrs not an object', '{"records":[{"id":"x","attrs":7}]}'],
  ['huge number', '{"records":[{"id":"x","vector":[1e400,0,0,0]}]}'],
  ['NaN literal', '{"records":[{"id":"x","vector":[NaN,0,0,0]}]}'],
];

const BAD_SEARCHES: [string, string][] = [
  ['null', 'null'],
  ['query not an array', '{"query":"x"}'],
  ['query too short', '{"query":[1,0]}'],
  ['top_k a string', '{"query":[1,0,0,0],"top_k":"ten"}'],
];

const BAD_DELETES: [string, string][] = [
  ['null', 'null'],
  ['ids not an array', '{"ids":"x"}'],
  ['ids of numbers', '{"ids":[1,2]}'],
];

const BAD_SMALL_BODIES: [string, string][] = [
  ['null', 'null'],
  ['array', '[]'],
  ['wrong value types', '{"target":1,"names":[1],"k":2}'],
];

async function expect400(t: ExecutionContext, method: string, path: string, cases: [string, string | Buffer][]) {
  for (const [name, body] of cases) {
    const r = await call(server, method, path, body);
    t.is(r.status, 400, `${method} ${path}: ${name}`);
    t.is(typeof r.json?.error, 'string', `${method} ${path}: ${name}`);
  }
}

test.serial('bad upsert bodies answer 400 with an error body and change nothing', async (t) => {
  const before = await snapshot();
  await expect400(t, 'POST', '/collections/kept/upsert', [...UNPARSABLE, ...BAD_UPSERTS]);
  // One bad record spoils the whole batch.
  const mixed = { records: [...unitRecords(3, 4, undefined, 'mixed'), { id: 'bad', vector: [1, 2] }] };
  t.is((await call(server, 'POST', '/collections/kept/upsert', mixed)).status, 400);
  // Also late in a batch large enough to be read in parts (512 KiB and more).
  const large = { records: unitRecords(12_000, 4, undefined, 'large') };
  large.records[9000] = { id: 'bad', vector: [1, 2] };
  const refused = await call(server, 'POST', '/collections/kept/upsert', large);
  t.true(JSON.stringify(large).length > 512 * 1024);
  t.is(refused.status, 400);
  t.regex(refused.json.error, /^records\[9000\]\.vector has length 2/);
  t.deepEqual(await snapshot(), before);
});

test.serial('bad search and delete bodies answer 400', async (t) => {
  const before = await snapshot();
  await expect400(t, 'POST', '/search', [...UNPARSABLE, ...BAD_SEARCHES]);
  await expect400(t, 'POST', '/collections/kept/delete', [...UNPARSABLE, ...BAD_DELETES]);
  t.deepEqual(await snapshot(), before);
});

test.serial('bad meta, alias and vector-names bodies answer 400 and change nothing', async (t) => {
  const before = await snapshot();
  for (const [method, path] of [
    ['PUT', '/collections/kept/meta'],
    ['PUT', '/aliases/a1'],
    ['POST', '/collections/kept/vector-names'],
  ]) {
    await expect400(t, method, path, [...UNPARSABLE, ...BAD_SMALL_BODIES]);
  }
  t.deepEqual(await snapshot(), before);
});

test.serial('a body cut off by the client changes nothing and the server carries on', async (t) => {
  // The server counts a client that went away under 4xx (499) once it has read the request's head.
  const cutOffs = async () =>
    Number(
      /svc_http_requests_total\{route="\/collections\/\{name\}\/upsert",status="4xx"\} (\d+)/.exec((await call(server, 'GET', '/metrics')).text)?.[1] ?? 0,
    );
  /**
   * An upload cut off halfway, sent again until the server counted it: on a loaded machine the
   * close can arrive with the head, and the server never saw a request.
   */
  const cutOff = async () => {
    const counted = (await cutOffs()) + 1;
    for (let attempt = 1; ; attempt++) {
      const { req } = openRequest(server, 'POST', '/collections/kept/upsert', valid.length);
      req.write(valid.slice(0, valid.length / 2));
      await sleep(20);
      req.destroy();
      try {
        return await until(async () => (await cutOffs()) >= counted, 'the cut-off upload reached the server', 3_000);
      } catch (err) {
        if (attempt === 5) throw err;
      }
    }
  };
  const before = await snapshot();
  for (let i = 0; i < 5; i++) await cutOff();
  t.deepEqual(await snapshot(), before);
  t.is((await call(server, 'GET', '/health')).status, 200);
});

test.serial('a number the parser cannot hold is 400 naming its field, on reads and writes, and changes nothing', async (t) => {
  const before = await snapshot();
  const cases: [string, string, string, RegExp][] = [
    [
      'POST',
      '/search',
      '{"query":[1,0,0,0],"top_k":100000000000000000000}',
      /^top_k is 100000000000000000000, out of range: integers must fit in signed 64 bits$/,
    ],
    ['POST', '/search', '{"query":[1,0,0,1e400]}', /^query\[3\] is 1e400: malformed or outside the 64-bit float range/],
    ['POST', '/search', '{"query":[1,0,NaN,0]}', /^query\[2\] is NaN: NaN and Infinity have no JSON form/],
    [
      'POST',
      '/search',
      '{"query":[1,0,0,0],"filter":[{"Eq":["n",{"Int":99999999999999999999}]}]}',
      /^filter\[0\]\.Eq\[1\]\.Int is .*; a Float holds larger numbers$/,
    ],
    [
      'POST',
      '/collections/kept/upsert',
      '{"records":[{"id":"a","vector":[1,0,0,0]},{"id":"b","vector":[1,0,0,0],"attrs":{"n":{"Int":18446744073709551616}}}]}',
      /^records\[1\]\.attrs\.n\.Int is 18446744073709551616, out of range/,
    ],
    ['POST', '/collections/kept/upsert', '{"records":[{"id":"a","vector":[-Infinity,0,0,0]}]}', /^records\[0\]\.vector\[0\] is -Infinity: NaN and Infinity/],
  ];
  for (const [method, path, body, message] of cases) {
    const r = await call(server, method, path, body);
    t.is(r.status, 400, body);
    t.regex(r.json.error, message);
  }
  t.deepEqual(await snapshot(), before);
});

test.serial('a malformed percent-encoded name answers 400', async (t) => {
  const r = await call(server, 'GET', '/collections/%E0%A4%A/meta');
  t.is(r.status, 400);
  t.regex(r.json.error, /percent-encoding/);
});

test('malformed JSON is 400 naming the byte, line and column where it breaks and what was expected, whichever layer parses the body', async (t) => {
  const body = '{\n  "query": [1, 0, 0, 0],\n  "top_k": }';
  const expected = "malformed JSON at byte 38 (line 3, column 12): expected a value (an object, array, string, number, true, false or null), found '}'";
  // The core parses /search and /upsert, the HTTP layer a small route's body, the library remember's.
  for (const [method, path] of [
    ['POST', '/search'],
    ['POST', '/collections/kept/upsert'],
    ['PUT', '/collections/kept/meta'],
    ['POST', '/collections/kept/remember'],
  ]) {
    const before = await snapshot();
    const r = await call(server, method, path, body);
    t.is(r.status, 400, `${method} ${path}`);
    t.is(r.json.error, expected, `${method} ${path}`);
    t.deepEqual(await snapshot(), before, `${method} ${path}`);
  }
  for (const [text, error] of [
    ['{"records": [', 'at byte 13 (line 1, column 14): expected a value (an object, array, string, number, true, false or null), found the end of the body'],
    ['{"records" []}', "at byte 11 (line 1, column 12): expected ':' after the key, found '['"],
    ['{"records": [1 2]}', "at byte 15 (line 1, column 16): expected ',' or ']', found '2'"],
    [`${valid}x`, `at byte ${valid.length} (line 1, column ${valid.length + 1}): expected the end of the body after the JSON value, found 'x'`],
    ['{"records": "a\\qb"}', 'at byte 15 (line 1, column 16): expected an escape: one of'],
  ]) {
    const r = await call(server, 'POST', '/collections/kept/upsert', text);
    t.is(r.status, 400, text);
    t.true(r.json.error.startsWith(`malformed JSON ${error}`), `${text}: ${r.json.error}`);
  }
});
