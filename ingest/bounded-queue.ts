/**
 * @module
 * A FIFO bounded by a weight (rows). `push` resolves at once while there is room and otherwise waits until
 * the consumer has taken enough (backpressure; tardis-node's BoundedQueue pattern). One item heavier than
 * the whole capacity is admitted when the queue is empty, so progress is always possible.
 */

export class BoundedQueue<T> {
  private readonly items: { item: T; weight: number }[] = []
  private weightNow = 0
  private readonly roomWaiters: Array<() => void> = []
  private readonly itemWaiters: Array<() => void> = []

  constructor(readonly capacity: number) {}

  get weight(): number {
    return this.weightNow
  }

  get length(): number {
    return this.items.length
  }

  private hasRoom(weight: number): boolean {
    return this.weightNow === 0 || this.weightNow + weight <= this.capacity
  }

  async push(item: T, weight: number): Promise<void> {
    while (!this.hasRoom(weight)) await new Promise<void>((r) => this.roomWaiters.push(r))
    this.items.push({ item, weight })
    this.weightNow += weight
    this.itemWaiters.shift()?.()
  }

  /** The next item, waiting for one if empty. */
  async take(): Promise<T> {
    while (this.items.length === 0) await new Promise<void>((r) => this.itemWaiters.push(r))
    const { item, weight } = this.items.shift()!
    this.weightNow -= weight
    for (const wake of this.roomWaiters.splice(0)) wake()
    return item
  }
}
