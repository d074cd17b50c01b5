/**
 * The `requestState`s a codec sealed, kept in process until their retry: when
 * the retry of a conversation comes back to the instance that sealed its
 * state (one instance, or a fleet with affinity), `unseal` takes the payload
 * from here instead of decoding base64url, decrypting and parsing JSON. On
 * the two-round benchmark tool that is about a tenth of the server's CPU per
 * conversation (`npm run bench`, README "Performance").
 *
 * Why it is sound: an entry is found only by the exact string this codec
 * returned from `seal`, and equal strings carry equal ciphertexts, so they
 * decrypt to the same plaintext under the same associated data. The caller
 * still compares the binding field by field (a state replayed against another
 * tool, other arguments or another principal takes the decrypting path and is
 * refused there), and still checks the expiry and redeems the single-use
 * `jti` exactly as for a decrypted state: the entry replaces the decryption,
 * nothing after it.
 *
 * Gotchas:
 * - An entry is taken (removed) by its first retry; a second retry of the same
 *   state decrypts as any other instance would.
 * - Bounded by an estimate of the heap it holds (`cost`), oldest first out;
 *   a budget of 0 keeps nothing. Entries past their expiry stay until pushed
 *   out, and are refused as expired by the caller when taken.
 * - Only payloads the engine serialized (`EncodedJson`) are kept: the engine
 *   builds a fresh value per seal and never changes it afterwards, and the
 *   journal decoder copies every container it reads from it. A value some
 *   other caller passed to `seal` could be changed by that caller later.
 *
 * @internal
 */

/** The fields of a binding an entry must match (see `RequestState.Binding`). */
export interface BindingFields {
  readonly method: string
  readonly target: string
  readonly argumentsDigest: string
  readonly audience: string
  readonly principal?: string | undefined
}

/** What `take` hands back: what decrypting and parsing the state would have given. */
export interface IssuedEntry<S> {
  readonly sealed: S
  readonly binding: BindingFields
  readonly cost: number
}

/**
 * Estimated heap bytes of an entry: the state string, the payload's objects
 * (about three times its JSON) and the entry's own objects and map slot
 * (about 512 bytes). Measured on Node 20 with `--expose-gc` (heap per kept
 * state, 2,000 states): 0.8-1.2x the heap an entry holds, from one pending
 * question to sixteen answers.
 */
export const cost = (state: string, payloadJsonLength: number): number => state.length + 3 * payloadJsonLength + 512

const sameBinding = (a: BindingFields, b: BindingFields): boolean =>
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
  remember(state: string, sealed: S, binding: BindingFields, entryCost: number): void {
    if (entryCost > this.budget) return
    const entries = this.entries
    while (this.used + entryCost > this.budget) {
      const oldest = entries.keys().next()
      if (oldest.done === true) break
      this.used -= entries.get(oldest.value)!.cost
      entries.delete(oldest.value)
    }
    // A copy: the entry must not follow later changes to the caller's object.
    const fields: BindingFields = binding.principal === undefined
      ? { method: binding.method, target: binding.target, argumentsDigest: binding.argumentsDigest, audience: binding.audience }
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
  take(state: string, binding: BindingFields): S | undefined {
    const entry = this.entries.get(state)
    if (entry === undefined || !sameBinding(entry.binding, binding)) return undefined
    this.entries.delete(state)
    this.used -= entry.cost
    return entry.sealed
  }
}
