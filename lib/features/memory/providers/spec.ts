// SPEC text: `KIND:MODEL@URL` for an HTTP API (`KIND@URL` where the model is optional), `KIND` or
// `KIND:N` for an offline kind. This file checks the grammar; create.ts knows which kinds exist.
import { ProviderSpecError } from './errors';
import { FLAG, KEY_VARIABLE, type Role } from './roles';

/** How one kind is written, with an example SPEC that works for it. */
export type KindRule =
  | { form: 'http'; model: 'required' | 'optional'; example: string }
  | { form: 'number'; name: string; min: number; max: number; example: string };

export type Spec = { form: 'http'; kind: string; model?: string; url: string } | { form: 'number'; kind: string; n?: number };

/** A ProviderSpecError naming the flag, the problem and an example to copy. */
export function specError(role: Role, problem: string, example: string): ProviderSpecError {
  return new ProviderSpecError(`${FLAG[role]}: ${problem} (e.g. ${FLAG[role]} ${example})`);
}

/** The identity of an HTTP provider: kind, model and base URL, nothing secret. */
export const httpIdentity = (spec: { kind: string; model?: string; url: string }): string =>
  `${spec.kind}${spec.model === undefined ? '' : `:${spec.model}`}@${spec.url}`;

const usage = (kind: string, rule: KindRule): string =>
  rule.form === 'number' ? `${kind} or ${kind}:${rule.name}` : rule.model === 'required' ? `${kind}:MODEL@URL` : `${kind}@URL or ${kind}:MODEL@URL`;

/** Parses SPEC text for role against the kinds that role has; throws ProviderSpecError. */
export function parseSpec(role: Role, text: string, kinds: Record<string, KindRule>): Spec {
  // The kind ends at the first ':' or '@'; the model (which may hold ':', as Ollama tags do) at the next '@'.
  const [, kind, model, url] = /^([^:@]*)(?::([^@]*))?(?:@(.*))?$/s.exec(text.trim()) ?? [];
  const names = Object.keys(kinds);
  if (!Object.hasOwn(kinds, kind)) {
    const problem = kind === '' ? 'no provider kind given' : `unknown kind "${kind}"`;
    throw specError(role, `${problem}; the kinds are ${names.join(', ')}`, kinds[names[0]].example);
  }
  const rule = kinds[kind];
  const fail = (problem: string) => specError(role, `${problem}; write ${usage(kind, rule)}`, rule.example);

  if (rule.form === 'number') {
    if (url !== undefined) throw fail(`${kind} runs in process and takes no @URL`);
    if (model === undefined) return { form: 'number', kind };
    const n = /^\d+$/.test(model) ? Number(model) : NaN;
    if (!(n >= rule.min && n <= rule.max)) throw fail(`${rule.name} must be an integer from ${rule.min} to ${rule.max}, got "${model}"`);
    return { form: 'number', kind, n };
  }
  if (url === undefined) throw fail(`${kind} needs the URL of its server after "@"`);
  if (model === undefined && rule.model === 'required') throw fail(`${kind} needs a model name`);
  if (model !== undefined && !/^\S+$/.test(model)) throw fail(`the model name "${model}" is empty or holds spaces`);
  return { form: 'http', kind, model, url: baseUrl(url, fail, role) };
}

/** The URL the API paths are appended to: http(s), no credentials, query or fragment, no trailing '/'. */
function baseUrl(text: string, fail: (problem: string) => ProviderSpecError, role: Role): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail(`"${text}" is not a URL`);
  }
  // Not echoed: whatever is there is likely a secret.
  if (url.username || url.password) throw fail(`the URL must not carry credentials: put the API key in ${KEY_VARIABLE[role]}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(`the URL must start with http:// or https://, got "${text}"`);
  if (url.search || url.hash) throw fail(`the URL "${text}" has a query or fragment; give the base URL the API path is appended to`);
  return url.origin + url.pathname.replace(/\/+$/, '');
}
