// StoreError, the one error type the library rejects with, and the conversion of whatever the
// core threw into it.

/** A refused open setting: its spec name (`ef_search`) and what is wrong with it, apart. */
export interface SettingProblem {
  setting: string;
  problem: string;
}

/** A failed call. `status` is the HTTP status the spec assigns to the failure. */
export class StoreError extends Error {
  readonly status: number;
  /** Set when an open setting was refused, so a front end can name it its own way (the CLI: `--ef-search`). */
  readonly setting?: SettingProblem;
  constructor(status: number, message: string, setting?: SettingProblem) {
    super(message);
    this.name = 'StoreError';
    this.status = status;
    if (setting) this.setting = setting;
  }
  /** True when the call stopped because its AbortSignal fired. */
  get cancelled(): boolean {
    return this.status === 499;
  }
}

/**
 * The core rejects with an Error carrying `status` (and, for a refused open setting, `setting` and
 * `problem`, the message then naming the setting by `spell`); anything else is a fault of ours (500).
 */
export function toStoreError(e: unknown, spell: (setting: string) => string = (s) => s): StoreError {
  if (e instanceof StoreError) return e;
  const err = e as { status?: unknown; message?: unknown; setting?: unknown; problem?: unknown };
  if (typeof err?.status === 'number' && typeof err.setting === 'string' && typeof err.problem === 'string')
    return new StoreError(err.status, `${spell(err.setting)} ${err.problem}`, { setting: err.setting, problem: err.problem });
  if (typeof err?.status === 'number') return new StoreError(err.status, String(err.message));
  return new StoreError(500, e instanceof Error ? e.message : String(e));
}

export const cancelledError = () => new StoreError(499, 'the request was cancelled');
