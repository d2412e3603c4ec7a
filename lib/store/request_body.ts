// A body the library reads itself (the features' requests): a value as given, or JSON bytes (an
// HTTP body) parsed with exact integers, a malformed one refused in the core's words.
import { parseExact } from '../exact_json';
import { malformedJson } from '../json_syntax';
import { StoreError } from './errors';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function requestBody(body: object | Uint8Array): unknown {
  if (!(body instanceof Uint8Array)) return body;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new StoreError(400, 'the body is not valid UTF-8: send JSON text encoded as UTF-8');
  }
  try {
    return parseExact(text);
  } catch (e) {
    throw new StoreError(400, malformedJson(text, e));
  }
}
