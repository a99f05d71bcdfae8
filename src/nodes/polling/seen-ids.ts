/** Recently seen ids in arrival order, bounded so the state that keeps them stays small. */
export class SeenIds {
  private readonly set: Set<string>;

  constructor(
    ids: readonly string[] = [],
    private readonly max = 5000,
  ) {
    this.set = new Set(ids.slice(-max));
  }

  has(id: string): boolean {
    return this.set.has(id);
  }

  add(id: string): void {
    this.set.delete(id);
    this.set.add(id);
    while (this.set.size > this.max) {
      const first = this.set.values().next().value;
      if (first === undefined) break;
      this.set.delete(first);
    }
  }

  toJSON(): string[] {
    return [...this.set];
  }
}
