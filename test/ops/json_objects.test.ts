// The boundary finder under import and export: it cuts a records array into its objects wherever
// the pieces break, and tells one JSON object on a line from anything else, strings and escapes
// included.
import test from 'ava';
import { ArrayObjects, isOneObject } from '../../lib/cli/json_objects';

// Brackets, braces, quotes and backslashes inside strings must not move a boundary.
const OBJECTS = ['{"id":"a","attrs":{}}', '{"id":"}{][,","v":[1,[2]]}', '{"id":"q\\"}","s":"\\\\"}', '{"id":"ü😀","a":{"b":{"c":[]}}}'];
const ARRAY = Buffer.from(`[${OBJECTS.join(',')}]`);

test('ArrayObjects finds every object of an array cut into two pieces anywhere', (t) => {
  for (let cut = 0; cut <= ARRAY.length; cut++) {
    const split = new ArrayObjects();
    const found = [...split.push(ARRAY.subarray(0, cut)), ...split.push(ARRAY.subarray(cut))].map(String);
    t.deepEqual(found, OBJECTS, `cut at ${cut}`);
  }
});

test('ArrayObjects finds every object of an array fed a byte at a time', (t) => {
  const split = new ArrayObjects();
  const found = [...ARRAY].flatMap((_, i) => split.push(ARRAY.subarray(i, i + 1))).map(String);
  t.deepEqual(found, OBJECTS);
});

test('isOneObject holds for one object with whitespace around it, and nothing else', (t) => {
  for (const one of [...OBJECTS, '  {"id":"x"} \r', '{}']) t.true(isOneObject(Buffer.from(one)), one);
  for (const other of ['{"id":"x"},{"id":"y"}', '{"id":"x"', '"id":"x"}', '{"id":"x"}}', '["x"]', '"x"', '12', '', '{"id":"x\\"}']) {
    t.false(isOneObject(Buffer.from(other)), other);
  }
});
