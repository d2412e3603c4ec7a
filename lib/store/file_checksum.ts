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

/** Copies a file's first `length` bytes (all of it when absent) into `to` in one checksumming pass, then syncs `to`. */
export function copyFileChecksummed(from: string, to: string, length?: number): Promise<Checksummed> {
  return native.copyFileChecksummed(from, to, length).catch((e) => {
    throw toStoreError(e);
  });
}
