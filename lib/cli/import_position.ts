// Where an import of a file stands: the byte offset and line number after its last durable batch,
// saved beside the file in FILE.tessera-import with the SHA-256 of every byte before that offset,
// so --resume refuses a file changed before it (fixing the line that stopped the import, or
// anything after it, is fine).
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../flags';

/** What the position is of: the same file resumes only into the same collection of the same store. */
export interface ImportTarget {
  collection: string;
  /** The store directory, resolved. */
  data: string;
}

interface Saved extends ImportTarget {
  offset: number;
  line: number;
  sha256: string;
}

export const positionFile = (file: string) => `${file}.tessera-import`;

export class ImportPosition {
  private constructor(
    private readonly file: string,
    private readonly target: ImportTarget,
    /** Bytes of the file already imported: every line before `line + 1`. */
    public offset: number,
    /** Lines already imported, blank ones included. */
    public line: number,
    /** Of the bytes before `offset`. */
    private readonly hash: Hash,
  ) {}

  /** From the first byte. */
  static start(file: string, target: ImportTarget): ImportPosition {
    return new ImportPosition(file, target, 0, 0, createHash('sha256'));
  }

  /** Where the last run left off, refused (a UsageError) when it was for another target or the file changed before it. */
  static async resume(file: string, target: ImportTarget): Promise<ImportPosition> {
    const sidecar = positionFile(file);
    if (!existsSync(sidecar))
      throw new UsageError(`--resume: no saved position ${sidecar} (an import of ${file} finished, or never started); run without --resume`);
    let saved: Saved;
    try {
      saved = JSON.parse(readFileSync(sidecar, 'utf8'));
    } catch (e) {
      throw new UsageError(`--resume: ${sidecar} is not a saved position (${(e as Error).message}); run without --resume`);
    }
    for (const key of ['collection', 'data'] as const) {
      if (saved[key] !== target[key]) throw new UsageError(`--resume: ${sidecar} is an import into ${key} ${saved[key]}, not ${target[key]}`);
    }
    const hash = createHash('sha256');
    if (saved.offset > 0 && statSync(file).size >= saved.offset) {
      for await (const chunk of createReadStream(file, { end: saved.offset - 1 })) hash.update(chunk);
    }
    if (hash.copy().digest('hex') !== saved.sha256) {
      throw new UsageError(`--resume: ${file} changed before line ${saved.line + 1}, where the last import stopped; run without --resume to import it all`);
    }
    return new ImportPosition(file, target, saved.offset, saved.line, hash);
  }

  /** Counts `bytes` (the lines through `line`) as imported and saves the position. */
  advance(bytes: readonly Buffer[], line: number): void {
    for (const b of bytes) {
      this.hash.update(b);
      this.offset += b.length;
    }
    this.line = line;
    const saved: Saved = { ...this.target, offset: this.offset, line, sha256: this.hash.copy().digest('hex') };
    // Written aside, then renamed over: a kill leaves the old position or the new, never half of one.
    // It is not synced: after a crash an older position only re-imports lines, and upserts are idempotent.
    const sidecar = positionFile(this.file);
    const partial = path.join(path.dirname(sidecar), `.${path.basename(sidecar)}.${process.pid}`);
    writeFileSync(partial, `${JSON.stringify(saved)}\n`);
    renameSync(partial, sidecar);
  }

  /** The whole file is imported: nothing is left to resume. */
  finish(): void {
    rmSync(positionFile(this.file), { force: true });
  }
}
