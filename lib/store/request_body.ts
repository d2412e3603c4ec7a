// A body the library reads itself (the features' requests): a value as given, or JSON bytes (an
// HTTP body) parsed with exact integers, a malformed one refused in the core's words; and checked
// by the schema the route table publishes for it.
import { bodyProblem } from '../contract/validate';
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

/**
 * `body` checked by the component schema named `component` (a 400 naming the field otherwise),
 * as an object whose fields sent as JSON null are left out: null reads as the field left out.
 */
export function checkedBody<T extends object>(component: string, body: unknown, at = ''): T {
  const problem = bodyProblem(component, body, at);
  if (problem !== null) throw new StoreError(400, problem);
  return Object.fromEntries(Object.entries(body as object).filter(([, v]) => v !== null && v !== undefined)) as T;
}
