// RecordsCursor: a collection's live records as successive pieces of one JSON array, read from
// the snapshot the cursor pins.
import type { NativeRecordsCursor } from '../native';
import { toStoreError } from './errors';

/** Pieces of one JSON array text holding every live record of a collection. */
export class RecordsCursor {
  constructor(private readonly cursor: NativeRecordsCursor) {}
  /** The next piece (about maxBytes), or null once the array is complete. */
  async next(maxBytes = 1 << 20): Promise<Buffer | null> {
    try {
      return await this.cursor.next(maxBytes);
    } catch (e) {
      throw toStoreError(e);
    }
  }
  /** Releases the snapshot the cursor pins; safe to call twice. */
  close(): void {
    this.cursor.close();
  }
}
