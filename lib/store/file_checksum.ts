// The core's checksummed file reads, for the features that move store files (backups): each runs
// on a libuv worker and rejects with a StoreError (404: no such file; 507: the disk is full).
import { native } from '../native';
import { toStoreError } from './errors';

/** What a read or copy went through: the CRC32C of its bytes, and how many. */
export interface Checksummed {
  crc32c: number;
  bytes: number;
}

/** The checksum of a file's first `length` bytes (all of it when absent). */
export function checksumFile(file: string, length?: number): Promise<Checksummed> {
  return native.checksumFile(file, length).catch((e) => {
    throw toStoreError(e);
  });
}

/**
 * Copies a file's first `length` bytes (all of it when absent) into `to` in one checksumming pass
 * and starts its write-back; `syncFile(to)` makes it durable (a few files later, to overlap).
 */
export function copyFileChecksummed(from: string, to: string, length?: number): Promise<Checksummed> {
  return native.copyFileChecksummed(from, to, length).catch((e) => {
    throw toStoreError(e);
  });
}

/** Makes a file's data durable. */
export async function syncFile(file: string): Promise<void> {
  await native.syncFile(file).catch((e) => {
    throw toStoreError(e);
  });
}
