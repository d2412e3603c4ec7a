// The two ways a provider fails: its SPEC is wrong (at startup), or a call to it fails.

/** Bad SPEC text: the message names the flag, the bad part and a valid example. */
export class ProviderSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderSpecError';
  }
}

/** A provider call failed. `provider` is the identity; `status` the HTTP status it answered, if any. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
