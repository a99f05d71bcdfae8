/** Recently created text jobs by (account, sender, recipients, text, caption), forgotten after the window. */
export class Duplicates {
  private readonly recent = new Map<string, { jobId: number; at: number }>();
  private readonly order: Array<{ key: string; at: number }> = [];
  private head = 0;

  constructor(private readonly windowMs: number) {}

  /** False with a window of 0: nothing is remembered, so callers need not build keys. */
  get enabled(): boolean {
    return this.windowMs > 0;
  }

  static key(
    user: string,
    sender: string,
    recipients: readonly string[],
    text: string,
    caption: string,
  ): string {
    return [user, sender, recipients.join(','), text, caption].join('\u0000');
  }

  find(key: string, now: number): number | undefined {
    if (this.windowMs <= 0) return undefined;
    this.expire(now);
    const hit = this.recent.get(key);
    return hit && now - hit.at < this.windowMs ? hit.jobId : undefined;
  }

  remember(key: string, jobId: number, now: number): void {
    if (this.windowMs <= 0) return;
    this.recent.set(key, { jobId, at: now });
    this.order.push({ key, at: now });
  }

  private expire(now: number): void {
    while (this.head < this.order.length && now - this.order[this.head]!.at >= this.windowMs) {
      const { key, at } = this.order[this.head]!;
      if (this.recent.get(key)?.at === at) this.recent.delete(key);
      this.head += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }
}
