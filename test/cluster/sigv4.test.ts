import test from 'ava';
import { amzDate, authorization, canonicalQuery, emptyPayloadHash, uriEncode } from '../../lib/features/cluster/sigv4';

// Published vectors: AWS's SigV4 test suite (get-vanilla, get-vanilla-query-order-key-case) and
// the examples of the S3 documentation, "Signature Calculations for the Authorization Header".

const suite = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const s3docs = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

test('get-vanilla', (t) => {
  const headers = { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' };
  t.is(
    authorization({ method: 'GET', path: '/', query: [], headers, payloadHash: emptyPayloadHash }, suite, 'us-east-1', 'service'),
    'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, ' +
      'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
  );
});

test('get-vanilla-query-order-key-case: parameters are signed sorted', (t) => {
  const headers = { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' };
  const query = [
    ['Param2', 'value2'],
    ['Param1', 'value1'],
  ] as const;
  t.regex(
    authorization({ method: 'GET', path: '/', query, headers, payloadHash: emptyPayloadHash }, suite, 'us-east-1', 'service'),
    /Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500$/,
  );
});

test('S3 docs: GET object with a range', (t) => {
  const headers = { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9', 'x-amz-content-sha256': emptyPayloadHash, 'x-amz-date': '20130524T000000Z' };
  t.is(
    authorization({ method: 'GET', path: '/test.txt', query: [], headers, payloadHash: emptyPayloadHash }, s3docs, 'us-east-1', 's3'),
    'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
      'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
  );
});

test('S3 docs: GET bucket (list objects) with a query', (t) => {
  const headers = { host: 'examplebucket.s3.amazonaws.com', 'x-amz-content-sha256': emptyPayloadHash, 'x-amz-date': '20130524T000000Z' };
  const query = [
    ['max-keys', '2'],
    ['prefix', 'J'],
  ] as const;
  t.regex(
    authorization({ method: 'GET', path: '/', query, headers, payloadHash: emptyPayloadHash }, s3docs, 'us-east-1', 's3'),
    /Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7$/,
  );
});

test('encoding: RFC 3986 unreserved characters pass, the rest are %XX (slashes kept in keys)', (t) => {
  t.is(uriEncode("a b+c!'()*~_.-é/"), 'a%20b%2Bc%21%27%28%29%2A~_.-%C3%A9%2F');
  t.is(uriEncode('dir/a b', true), 'dir/a%20b');
  t.is(
    canonicalQuery([
      ['prefix', 'a b'],
      ['list-type', '2'],
      ['a', '2'],
      ['a', '1'],
    ]),
    'a=1&a=2&list-type=2&prefix=a%20b',
  );
  t.is(amzDate(new Date('2015-08-30T12:36:00.123Z')), '20150830T123600Z');
});
