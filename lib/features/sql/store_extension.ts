// SQL on the library: Store.query and Store.queryJson, each statement of a script compiled to the
// typed route its ORDER BY head names and run through the store's own calls. Part of every build.
import { parseExact } from '../../exact_json';
import { StoreError } from '../../store/errors';

import { installExtension, Store } from '../../store/store';
import type { CallOptions } from '../../store/cancellation';
import { SqlError } from './parse';
import { compileScript, type Prepared, runQuery } from './query';

declare module '../../store/store' {
  interface Store {
    /**
     * POST /query: `;`-separated SELECT statements (docs/sql.md), each compiled to the typed route
     * its ORDER BY head names. One statement answers that route's answer; a script, an array of
     * them in order; `compileOnly`, the compiled form instead of hits. A statement that does not
     * parse or compile is 400 naming the byte offset and the docs/sql.md section.
     */
    query(sql: string, options?: { compileOnly?: boolean }, o?: CallOptions): Promise<unknown>;
    /** query answering its JSON bytes (what the HTTP route sends). */
    queryJson(sql: string, options?: { compileOnly?: boolean }, o?: CallOptions): Promise<Buffer>;
  }
}

installExtension({ name: 'sql', feature: null, enabled: true });

Store.prototype.query = async function (this: Store, sql, options = {}, o) {
  return parseExact(await this.queryJson(sql, options, o));
};
Store.prototype.queryJson = function (this: Store, sql, { compileOnly = false } = {}, o) {
  if (typeof sql !== 'string') return Promise.reject(new StoreError(400, 'sql must be a string of SELECT statements'));
  let prepared: Prepared[];
  try {
    prepared = compileScript(sql);
  } catch (err) {
    return Promise.reject(err instanceof SqlError ? new StoreError(400, err.message) : err);
  }
  return runQuery(this, prepared, compileOnly, o);
};
