/**
 * The `requestState`s a codec sealed, kept in process with their plaintext
 * until their retry: when the retry of a conversation comes back to the
 * instance that sealed its state (one instance, or a fleet with affinity),
 * `unseal` parses the kept plaintext instead of decoding base64url and
 * decrypting. On the two-round benchmark tool that is 13-17% of the
 * server's CPU per conversation (`npm run bench`, bench/README.md).
 *
 * Why it is sound: an entry is found only by the exact string this codec
 * returned from `seal`, and equal strings carry equal ciphertexts, so they
 * decrypt to the same plaintext under the same associated data. The caller
 * still compares the binding field by field (a state replayed against another
 * tool, other arguments or another principal takes the decrypting path and is
 * refused there), parses the plaintext afresh (so what a retry gets is a value
 * of its own, the journal as it was sealed, whatever happened since to the
 * objects it was serialized from), and checks the expiry and redeems the
 * single-use `jti` exactly as for a decrypted state: the entry replaces the
 * decryption, nothing after it.
 *
 * Gotchas:
 * - An entry is taken (removed) by its first retry; a second retry of the same
 *   state decrypts as any other instance would.
 * - Bounded by an estimate of the heap it holds (`cost`), oldest first out;
 *   a budget of 0 keeps nothing. Entries past their expiry stay until pushed
 *   out, and are refused as expired by the caller when taken.
 *
 * @internal
 */

import type { Binding } from "./binding.ts"

/** One kept state: what was kept of it (`sealed`), the binding it was sealed for, its estimated heap bytes. */
export interface IssuedEntry<S> {
  readonly sealed: S
  readonly binding: Binding
  readonly cost: number
}

/**
 * Estimated heap bytes of an entry: the state string, its plaintext (twice
 * its length: a string with any character beyond Latin-1 takes two bytes a
 * character) and the entry's own objects and map slot (about 256 bytes).
 * Measured on Node 20 (`--expose-gc`, 5,000 kept states against none): the
 * estimate is 1.2-1.4x the heap an entry holds, from one pending question to
 * sixteen answers.
 */
export const cost = (state: string, plaintextLength: number): number => state.length + 2 * plaintextLength + 256

const sameBinding = (a: Binding, b: Binding): boolean =>
  a.method === b.method && a.target === b.target && a.argumentsDigest === b.argumentsDigest &&
  a.audience === b.audience && a.principal === b.principal

/** A bounded map from sealed strings to what they hold; see the module header. */
export class IssuedStates<S> {
  private readonly entries = new Map<string, IssuedEntry<S>>()
  private used = 0

  /** `budget`: the estimated heap bytes all entries may hold together (0: none are kept). */
  constructor(readonly budget: number) {}

  /** Estimated heap bytes held now. */
  get bytes(): number {
    return this.used
  }

  /** How many states are held now. */
  get size(): number {
    return this.entries.size
  }

  /** Keeps `sealed` under `state`, pushing out the oldest entries past the budget; an entry over the whole budget is not kept. */
  remember(state: string, sealed: S, binding: Binding, entryCost: number): void {
    if (entryCost > this.budget) return
    const entries = this.entries
    // The same string kept again (a `SecureRandom` that repeats): the new entry replaces the old, cost and all.
    const previous = entries.get(state)
    if (previous !== undefined) {
      entries.delete(state)
      this.used -= previous.cost
    }
    while (this.used + entryCost > this.budget) {
      const oldest = entries.keys().next()
      if (oldest.done === true) break
      this.used -= entries.get(oldest.value)!.cost
      entries.delete(oldest.value)
    }
    // A copy: the entry must not follow later changes to the caller's object.
    const fields: Binding = binding.principal === undefined
      ? {
        method: binding.method,
        target: binding.target,
        argumentsDigest: binding.argumentsDigest,
        audience: binding.audience
      }
      : {
        method: binding.method,
        target: binding.target,
        argumentsDigest: binding.argumentsDigest,
        audience: binding.audience,
        principal: binding.principal
      }
    entries.set(state, { sealed, binding: fields, cost: entryCost })
    this.used += entryCost
  }

  /**
   * The entry of `state` when this codec sealed it for exactly `binding`,
   * removed; `undefined` otherwise (an entry for another binding stays).
   */
  take(state: string, binding: Binding): S | undefined {
    const entry = this.entries.get(state)
    if (entry === undefined || !sameBinding(entry.binding, binding)) return undefined
    this.entries.delete(state)
    this.used -= entry.cost
    return entry.sealed
  }
}
