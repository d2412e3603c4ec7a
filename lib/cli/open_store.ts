// How the commands beside serve open a store: as its writer, refusing to share it with a server
// (ingest, import); or read-only, which never takes the writer lock, so it runs beside a server
// and sees what that server had made durable when it opened (export, stats).
import '../features/extensions';
import { Store } from '../store/store';
import type { OpenOptions } from '../types';

/** The store a command writes: refused when a server (or another writer) holds it. */
export async function openWriter(options: OpenOptions & { path: string }): Promise<Store> {
  const store = await Store.open(options);
  if (store.role !== 'Reader') return store;
  await store.close();
  throw new Error(`${options.path} is being written by ${store.writerHolder ?? 'another process'}; stop it first`);
}

/** The store a command only reads. */
export const openReader = (path: string): Promise<Store> => Store.open({ path, readOnly: true });
