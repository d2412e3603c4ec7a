// `tessera/client`: the typed HTTP client, the error it rejects with (the library's own) and the
// wire types. It loads no native code, so it runs wherever Node's fetch does.
export { type ClientOptions, type RequestOptions, TesseraClient } from './client';
export { StoreError } from '../store/errors';
export type * from '../types';
