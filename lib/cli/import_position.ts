// Where an import of a file stands: the byte offset after its last durable batch and the lines (of
// JSON lines) or rows (of a vector file) before it, saved beside the file in FILE.tessera-import
// with the SHA-256 of every byte before that offset, so --resume refuses a file changed before it
// (fixing the line or row that stopped the import, or anything after it, is fine).
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '../flags';
import { contiguousRuns } from './contiguous_runs';

/** What the position is of: the same file resumes only into the same collection of the same store. */
export interface ImportTarget {
  collection: string;
  /** The store directory, resolved. */
  data: string;
}

/** What the file is counted in: lines number from 1, as editors show them; rows from 0, as a vector file's default ids. */
export type Unit = 'line' | 'row';
const FIRST_NUMBER: Record<Unit, number> = { line: 1, row: 0 };

type Saved = ImportTarget & { offset: number; sha256: string } & { [unit in Unit]?: number };

export const positionFile = (file: string) => `${file}.tessera-import`;

export class ImportPosition {
  private constructor(
    private readonly file: string,
    private readonly target: ImportTarget,
    private readonly unit: Unit,
    /** Bytes of the file already imported: every line or row before `next`. */
    public offset: number,
    /** Lines or rows already imported, blank lines included. */
    private imported: number,
    /** Of the bytes before `offset`. */
    private readonly hash: Hash,
  ) {}

  /** From the first byte. */
  static start(file: string, target: ImportTarget, unit: Unit): ImportPosition {
    return new ImportPosition(file, target, unit, 0, 0, createHash('sha256'));
  }

  /** Where the last run left off, refused (a UsageError) when it was for another target or the file changed before it. */
  static async resume(file: string, target: ImportTarget, unit: Unit): Promise<ImportPosition> {
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
    const imported = saved[unit];
    if (typeof imported !== 'number') throw new UsageError(`--resume: ${sidecar} is not a saved position of ${unit}s; run without --resume`);
    const hash = createHash('sha256');
    if (saved.offset > 0 && statSync(file).size >= saved.offset) {
      for await (const chunk of createReadStream(file, { end: saved.offset - 1 })) hash.update(chunk);
    }
    if (hash.copy().digest('hex') !== saved.sha256) {
      const next = imported + FIRST_NUMBER[unit];
      throw new UsageError(`--resume: ${file} changed before ${unit} ${next}, where the last import stopped; run without --resume to import it all`);
    }
    return new ImportPosition(file, target, unit, saved.offset, imported, hash);
  }

  /** The number of the first line or row not imported. */
  get next(): number {
    return this.imported + FIRST_NUMBER[this.unit];
  }

  /** Counts `bytes` (the lines or rows through number `last`) as imported and saves the position. */
  advance(bytes: readonly Buffer[], last: number): void {
    for (const run of contiguousRuns(bytes)) {
      this.hash.update(run);
      this.offset += run.length;
    }
    this.imported = last + 1 - FIRST_NUMBER[this.unit];
    const saved: Saved = { ...this.target, offset: this.offset, [this.unit]: this.imported, sha256: this.hash.copy().digest('hex') };
    // Written aside, then renamed over: a kill leaves the old position or the new, never half of one.
    // It is not synced: after a crash an older position only re-imports lines or rows, and upserts are idempotent.
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
