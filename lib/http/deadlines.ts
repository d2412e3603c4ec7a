// Deadlines: the timeouts of in-flight requests. Requests of one access class share one timeout,
// so their deadlines pass in arrival order: a list in that order and one timer armed for its head
// serve them all, where a timer per request shows at tens of thousands of requests a second.

/** One request's place in the list; `cancel()` takes it out once the request is settled. */
export interface Deadline {
  cancel(): void;
}

interface Entry extends Deadline {
  at: number;
  expire: () => void;
  prev: Entry | null;
  next: Entry | null;
}

export class Deadlines {
  private head: Entry | null = null;
  private tail: Entry | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ms: number) {}

  /** Calls `expire` once `ms` have passed, unless cancelled first. */
  add(expire: () => void): Deadline {
    const entry: Entry = { at: performance.now() + this.ms, expire, prev: this.tail, next: null, cancel: () => this.remove(entry) };
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.timer) this.arm();
    return entry;
  }

  private remove(entry: Entry): void {
    if (entry.prev) entry.prev.next = entry.next;
    else if (this.head === entry) this.head = entry.next;
    else return; // expired or removed already
    if (entry.next) entry.next.prev = entry.prev;
    else this.tail = entry.prev;
    entry.prev = entry.next = null;
  }

  /** Arms the timer for the head; a head settled meanwhile only makes it fire early and re-arm. */
  private arm(): void {
    this.timer = this.head ? setTimeout(() => this.fire(), Math.max(0, this.head.at - performance.now())) : null;
  }

  private fire(): void {
    const now = performance.now();
    while (this.head && this.head.at <= now) {
      const entry = this.head;
      this.remove(entry);
      entry.expire();
    }
    this.arm();
  }
}
