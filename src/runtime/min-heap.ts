/** A binary min-heap ordered by `priority` (ties: insertion order). */
export class MinHeap<T> {
  #items: { priority: number; seq: number; value: T }[] = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  push(priority: number, value: T): void {
    const items = this.#items;
    items.push({ priority, seq: this.#seq++, value });
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  peek(): { priority: number; value: T } | undefined {
    return this.#items[0];
  }

  pop(): { priority: number; value: T } | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined) return undefined;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.#less(l, m)) m = l;
        if (r < items.length && this.#less(r, m)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top;
  }

  #less(a: number, b: number): boolean {
    const x = this.#items[a]!;
    const y = this.#items[b]!;
    return x.priority < y.priority || (x.priority === y.priority && x.seq < y.seq);
  }

  #swap(a: number, b: number): void {
    const items = this.#items;
    [items[a], items[b]] = [items[b]!, items[a]!];
  }
}
