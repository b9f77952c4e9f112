/** Requests counted against a member's daily share between their acceptance and their submit. */

/** Who holds how many reservations, per server and member; released by request id, once. */
export class Reservations {
  readonly #byMember = new Map<string, Set<string>>();
  readonly #memberOf = new Map<string, string>();

  /** Reservations the member holds in the server now. */
  count(guildId: string, memberId: string): number {
    return this.#byMember.get(`${guildId}:${memberId}`)?.size ?? 0;
  }

  /** Reserves one generation for request `id`. */
  hold(guildId: string, memberId: string, id: string): void {
    const key = `${guildId}:${memberId}`;
    let held = this.#byMember.get(key);
    if (held === undefined) {
      held = new Set();
      this.#byMember.set(key, held);
    }
    held.add(id);
    this.#memberOf.set(id, key);
  }

  /** Ends request `id`'s reservation (submitted, or ended without a generation); idempotent. */
  release(id: string): void {
    const key = this.#memberOf.get(id);
    if (key === undefined) return;
    this.#memberOf.delete(id);
    const held = this.#byMember.get(key);
    held?.delete(id);
    if (held?.size === 0) this.#byMember.delete(key);
  }

  /** Requests holding a reservation, all servers together. */
  get size(): number {
    return this.#memberOf.size;
  }
}
