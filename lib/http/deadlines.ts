// Deadlines: the timeouts of in-flight requests. Requests of one access class share one timeout,
// so their deadlines pass in arrival order: a list in that order and one timer armed for its head
// serve them all, where a timer per request shows at tens of thousands of requests a second.

/** What a deadline expires: told once, unless its deadline was cancelled first. */
export interface Expiring {
  expire(): void;
}

/** One request's place in the list; `cancel()` takes it out once the request is settled. */
export class Deadline {
  prev: Deadline | null;
  next: Deadline | null = null;

  constructor(
    private readonly list: Deadlines,
    readonly at: number,
    readonly target: Expiring,
  ) {
    this.prev = list.tail;
  }

  cancel(): void {
    this.list.remove(this);
  }
}

export class Deadlines {
  head: Deadline | null = null;
  tail: Deadline | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly ms: number) {}

  /** Expires `target` once `ms` have passed, unless the returned deadline is cancelled first. */
  add(target: Expiring): Deadline {
    const entry = new Deadline(this, performance.now() + this.ms, target);
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    if (!this.timer) this.arm();
    return entry;
  }

  remove(entry: Deadline): void {
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
      entry.target.expire();
    }
    this.arm();
  }
}
