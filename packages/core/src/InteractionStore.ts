/**
 * Where the value of a secure (URL-mode) elicitation waits between the
 * browser and the retry: the `InteractionStore` service and its bounded,
 * expiring in-memory implementation.
 *
 * An interaction is created by `Elicitation.secure` on the conversation's
 * first round (its id then travels sealed in `requestState`), completed by the
 * server's interaction page when the user submits it, and handed out once to
 * the retry that resumes the handler. Gotchas: the id is the only secret of
 * the page's URL (32 random bytes), so it is never logged; a value is handed
 * out once and deleted (the record stays as a tombstone without the value, so
 * a second submit of the page is told it was done, and an expired page is told
 * it expired, for one more TTL, at least a minute); the value is held sealed to the interaction's
 * `sealingKey` (`InteractionSeal`: the page seals it, only the conversation can open it), so no
 * store ever holds a secret in clear; a full store refuses new interactions
 * (`InteractionStoreFull`) rather than forget pending ones, with bounds per
 * principal and apart for unauthenticated requests (as the `ReplayGuard`). A fleet needs a
 * shared store: `@mrtr/server/Redis`'s `layerInteractionStore` (a hash per id
 * expiring by `PEXPIREAT`, each operation one Lua script), part of
 * `Redis.layerFleet`, given to `InteractionPage.layer` as its `store`.
 * Source: MCP 2026-07-28, client/elicitation (URL mode, security considerations).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SecureRandom } from "effect/crypto"
import type { RequestedSchema } from "./ElicitationSchema.ts"

/**
 * What the page shows and checks, fixed when the interaction is created:
 * `message` (the ask's message), `requestedSchema` (the flat form, as
 * `Elicitation.form` would send it), `principal` (the authenticated user the
 * conversation belongs to, when authorization is on: only that user may
 * complete the page), `address` (without a principal, the client address of
 * the request: the share of the store the interaction counts in; not shown),
 * `sealingKey` (the interaction's X25519 public key, 43 base64url
 * characters, that the page seals the submitted value to; its private key
 * stays in the conversation's journal: see `InteractionSeal`).
 *
 * @category models
 * @since 0.1.0
 */
export interface InteractionForm {
  readonly message: string
  readonly requestedSchema: RequestedSchema
  readonly principal?: string | undefined
  readonly address?: string | undefined
  /** @since 0.4.0 */
  readonly sealingKey: string
}

/**
 * The state of an interaction:
 * - `pending`: the page waits for the user;
 * - `completed`: the page was submitted, the value waits for the retry;
 * - `handedOut`: the value went to the handler and was deleted;
 * - `expired`: nobody completed (or collected) it in time.
 *
 * @category models
 * @since 0.1.0
 */
export type InteractionState = "pending" | "completed" | "handedOut" | "expired"

/**
 * One interaction as the store holds it: `id` (43 base64url characters, the
 * secret part of the page's URL), `csrfToken` (43 base64url characters, for
 * the page's form), `expiresAt` (epoch milliseconds) and `state`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Interaction extends InteractionForm {
  readonly id: string
  readonly csrfToken: string
  readonly expiresAt: number
  readonly state: InteractionState
}

/**
 * What `complete` did: `completed` (the value is stored), or why not:
 * `alreadyCompleted` (completed or handed out before: the page is single
 * use), `expired`, `unknown` (no such id: tampered, or long gone),
 * `full` (the value would take the interaction's share or pool past its
 * bytes: `maxBytesPerPrincipal`, `maxAnonymousBytes`; nothing was stored,
 * the page stays pending; since 0.4.0).
 *
 * @category models
 * @since 0.1.0
 */
export type CompleteOutcome = "completed" | "alreadyCompleted" | "expired" | "unknown" | "full"

/**
 * The store holds as many interactions (pending, completed or tombstones) as
 * it may for the request's principal (`scope: "principal"`), for the
 * client address of a request without one (`scope: "address"`), or for all
 * requests without one (`scope: "anonymous"`): no new secure elicitation can
 * start there until some expire. `capacity` is the bound that was hit, in
 * `unit`s: `"interactions"` (a count, the default) or `"bytes"` (what the
 * stored forms and values weigh together: `maxBytesPerPrincipal`,
 * `maxAnonymousBytes`). Answered as the tool's error (the handler may catch it).
 *
 * @category errors
 * @since 0.1.0
 */
export class InteractionStoreFull extends Schema.TaggedError<InteractionStoreFull>()("InteractionStoreFull", {
  scope: Schema.Literals(["principal", "address", "anonymous"]),
  capacity: Schema.Number,
  /** @since 0.4.0 */
  unit: Schema.optional(Schema.Literals(["interactions", "bytes"]))
}) {
  override get message(): string {
    return `The server cannot start another secure elicitation now: its interaction store holds ${this.capacity} ` +
      `${this.unit === "bytes" ? "bytes of interactions" : "interactions"} ${
        this.scope === "principal"
          ? "for this user"
          : this.scope === "address"
          ? "for unauthenticated requests from this address"
          : "for unauthenticated requests"
      }; retry later`
  }
}

/**
 * The store could not answer: a shared store (Redis) is unreachable, timed
 * out, or gave an error reply (`reason` says which). Nothing was accepted or
 * handed out by the failed operation. `Elicitation.secure` fails with it (the
 * tool's error unless the handler catches it, e.g. to fall back to a form);
 * the interaction page answers 503 "try again in a moment". The in-memory
 * store never fails with it.
 *
 * @category errors
 * @since 0.2.0
 */
export class InteractionStoreUnavailable extends Schema.TaggedError<InteractionStoreUnavailable>()(
  "InteractionStoreUnavailable",
  { reason: Schema.String }
) {
  override get message(): string {
    return `The interaction store is unavailable (${this.reason}); retry later`
  }
}

/**
 * The interaction store.
 *
 * - `create(form, ttlMillis)`: a new `pending` interaction expiring
 *   `ttlMillis` from now, with fresh random `id` and `csrfToken`; fails with
 *   {@link InteractionStoreFull}.
 * - `get(id)`: the interaction (its value never included), `undefined` for an
 *   unknown id.
 * - `complete(id, sealed)`: atomically `pending` → `completed` with
 *   `sealed` (the decoded form values, sealed by the page to the
 *   interaction's `sealingKey` with `InteractionSeal.seal`: an opaque
 *   string), unless its bytes would break a byte bound (`full`).
 * - `take(id)`: atomically `completed` → `handedOut`, returning the sealed
 *   value once; `undefined` in any other state.
 *
 * Every operation of a shared store may fail with
 * {@link InteractionStoreUnavailable}.
 *
 * Source: MCP 2026-07-28, client/elicitation (URL mode).
 *
 * @category services
 * @since 0.1.0
 */
export class InteractionStore extends Context.Service<InteractionStore, {
  readonly create: (
    form: InteractionForm,
    ttlMillis: number
  ) => Effect.Effect<Interaction, InteractionStoreFull | InteractionStoreUnavailable>
  readonly get: (id: string) => Effect.Effect<Interaction | undefined, InteractionStoreUnavailable>
  readonly complete: (id: string, sealed: string) => Effect.Effect<CompleteOutcome, InteractionStoreUnavailable>
  readonly take: (id: string) => Effect.Effect<string | undefined, InteractionStoreUnavailable>
}>()("@mrtr/core/InteractionStore") {
  /**
   * An in-memory store for one server instance (see
   * {@link InteractionStoreMemoryOptions}). Time comes from the `Clock`
   * service, ids from `SecureRandom`. Throws a `RangeError` for a bound that
   * is not a positive integer.
   *
   * @since 0.1.0
   */
  static readonly makeMemory = (
    options?: InteractionStoreMemoryOptions
  ): Effect.Effect<InteractionStore["Service"], never, SecureRandom.SecureRandom> =>
    Effect.gen(function*() {
      return makeMemoryWith(yield* SecureRandom.SecureRandom, options)
    })

  /**
   * The default in-memory store: at most 10,000 interactions without a
   * principal, 10,000 for all principals, 100 per principal, 1 MiB per
   * principal (or client address), 32 MiB without a principal; WebCrypto
   * randomness. For a single instance only; a fleet swaps this layer for a
   * shared store.
   *
   * @since 0.1.0
   */
  static readonly layerMemory = (options?: InteractionStoreMemoryOptions): Layer.Layer<InteractionStore> =>
    Layer.effect(InteractionStore, InteractionStore.makeMemory(options)).pipe(
      Layer.provide(SecureRandom.layerWebCrypto)
    )
}

/**
 * Options of {@link InteractionStore.makeMemory}:
 *
 * - `maxEntries`: the most interactions kept (pending, completed and
 *   tombstones together) for requests without a principal, and, separately,
 *   for all principals together (default 10,000 each), so unauthenticated
 *   traffic never takes the room of authenticated users;
 * - `maxEntriesPerPrincipal`: the most of one principal, and the most of
 *   one client address among requests without a principal (default 100),
 *   so one user or one unauthenticated client cannot fill the store for
 *   others;
 * - `maxBytesPerPrincipal`: the most bytes (UTF-8 of each form's message and
 *   schema as JSON, plus each stored sealed value) of one principal, or of
 *   one client address without a principal (default 1 MiB);
 * - `maxAnonymousBytes`: the most bytes of every interaction without a
 *   principal together (default 32 MiB), so unauthenticated clients, from
 *   however many addresses, cannot fill the server's memory (or Redis).
 *
 * A form is counted from `create` until its record is forgotten, a value
 * from `complete` until it is taken or its page expires. A create past a byte
 * bound fails with `InteractionStoreFull` (`unit: "bytes"`), a complete
 * answers `full`. Each record is kept until one TTL (at least a minute) after its expiry (so
 * the page can say it expired or was used), then evicted on use. Nothing live
 * is forgotten to make room.
 *
 * @category models
 * @since 0.1.0
 */
export interface InteractionStoreMemoryOptions {
  /** The most interactions without a principal, and, separately, of all principals together. @default 10000 */
  readonly maxEntries?: number | undefined
  /** The most interactions of one principal, or of one client address without a principal. @default 100 */
  readonly maxEntriesPerPrincipal?: number | undefined
  /**
   * The most bytes of the forms and values of one principal, or of one client address without a principal.
   *
   * @default 1048576 (1 MiB)
   * @since 0.4.0
   */
  readonly maxBytesPerPrincipal?: number | undefined
  /**
   * The most bytes of the forms and values of every interaction without a principal together.
   *
   * @default 33554432 (32 MiB)
   * @since 0.4.0
   */
  readonly maxAnonymousBytes?: number | undefined
}

// What a form weighs in the byte bounds: its message and schema as JSON (UTF-8).
const formBytes = (form: Pick<InteractionForm, "message" | "requestedSchema">): number =>
  Buffer.byteLength(JSON.stringify({ message: form.message, requestedSchema: form.requestedSchema }))

interface Entry {
  interaction: Interaction
  /** The client address share it counts in (no principal only). */
  readonly address: string | undefined
  /** The sealed value, while completed. */
  content: string | undefined
  /** What the form weighs (counted until forgotten). */
  readonly formBytes: number
  /** When the record itself is forgotten: one TTL (at least a minute) after `expiresAt`. */
  readonly forgetAt: number
}

// How long, at least, an expired or used page can still say so.
const minimumTombstoneMillis = 60_000

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

const positiveInteger = (name: string, value: number): number => {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`InteractionStore.makeMemory: ${name} must be a positive integer`)
  }
  return value
}

const makeMemoryWith = (
  random: SecureRandom.SecureRandom["Service"],
  options: InteractionStoreMemoryOptions | undefined
): InteractionStore["Service"] => {
  const maxEntries = positiveInteger("maxEntries", options?.maxEntries ?? 10_000)
  const maxPerPrincipal = positiveInteger("maxEntriesPerPrincipal", options?.maxEntriesPerPrincipal ?? 100)
  const maxShareBytes = positiveInteger("maxBytesPerPrincipal", options?.maxBytesPerPrincipal ?? 1_048_576)
  const maxAnonymousBytes = positiveInteger("maxAnonymousBytes", options?.maxAnonymousBytes ?? 33_554_432)
  const entries = new Map<string, Entry>()
  let anonymous = 0
  let authenticated = 0
  let anonymousBytes = 0
  const perPrincipal = new Map<string, number>()
  const perAddress = new Map<string, number>()
  // Bytes of each share: `p:<principal>` or `a:<address>`.
  const shareBytes = new Map<string, number>()
  const shareOf = (principal: string | undefined, address: string | undefined): string | undefined =>
    principal !== undefined ? "p:" + principal : address !== undefined ? "a:" + address : undefined
  const bump = (map: Map<string, number>, key: string, delta: number) => {
    const left = (map.get(key) ?? 0) + delta
    if (left === 0) map.delete(key)
    else map.set(key, left)
  }
  // Counts `delta` bytes for the entry's share and pool.
  const weigh = (entry: Entry, delta: number) => {
    const share = shareOf(entry.interaction.principal, entry.address)
    if (share !== undefined) bump(shareBytes, share, delta)
    if (entry.interaction.principal === undefined) anonymousBytes += delta
  }
  const entryBytes = (entry: Entry) => entry.formBytes + (entry.content === undefined ? 0 : entry.content.length)
  const add = (entry: Entry) => {
    entries.set(entry.interaction.id, entry)
    const principal = entry.interaction.principal
    if (principal === undefined) {
      anonymous++
      if (entry.address !== undefined) bump(perAddress, entry.address, 1)
    } else {
      authenticated++
      bump(perPrincipal, principal, 1)
    }
    weigh(entry, entryBytes(entry))
  }
  const forget = (id: string, entry: Entry) => {
    entries.delete(id)
    const principal = entry.interaction.principal
    if (principal === undefined) {
      anonymous--
      if (entry.address !== undefined) bump(perAddress, entry.address, -1)
    } else {
      authenticated--
      bump(perPrincipal, principal, -1)
    }
    weigh(entry, -entryBytes(entry))
  }
  // Drops the entry's value (taken or expired), giving its bytes back.
  const dropContent = (entry: Entry) => {
    if (entry.content !== undefined) weigh(entry, -entry.content.length)
    entry.content = undefined
  }
  // Which byte bound `bytes` more of `principal` (else of `address`) would break, if any.
  const heavy = (principal: string | undefined, address: string | undefined, bytes: number) => {
    const share = shareOf(principal, address)
    if (share !== undefined && (shareBytes.get(share) ?? 0) + bytes > maxShareBytes) {
      return new InteractionStoreFull({
        scope: principal === undefined ? "address" : "principal",
        capacity: maxShareBytes,
        unit: "bytes"
      })
    }
    return principal === undefined && anonymousBytes + bytes > maxAnonymousBytes
      ? new InteractionStoreFull({ scope: "anonymous", capacity: maxAnonymousBytes, unit: "bytes" })
      : undefined
  }
  // Expires what is past `expiresAt` (its value's bytes given back) and forgets what is past `forgetAt`.
  const settle = (now: number) => {
    for (const [id] of entries) current(id, now)
  }
  // Which bound a new interaction of `principal` (else of `address`) would break, if any.
  const full = (principal: string | undefined, address: string | undefined): InteractionStoreFull | undefined => {
    if (principal === undefined) {
      if (address !== undefined && (perAddress.get(address) ?? 0) >= maxPerPrincipal) {
        return new InteractionStoreFull({ scope: "address", capacity: maxPerPrincipal })
      }
      return anonymous >= maxEntries
        ? new InteractionStoreFull({ scope: "anonymous", capacity: maxEntries })
        : undefined
    }
    if ((perPrincipal.get(principal) ?? 0) >= maxPerPrincipal) {
      return new InteractionStoreFull({ scope: "principal", capacity: maxPerPrincipal })
    }
    return authenticated >= maxEntries
      ? new InteractionStoreFull({ scope: "principal", capacity: maxEntries })
      : undefined
  }
  // The entry of `id` as of `now`: forgotten past `forgetAt`, marked expired past `expiresAt`.
  const current = (id: string, now: number): Entry | undefined => {
    const entry = entries.get(id)
    if (entry === undefined) return undefined
    if (entry.forgetAt <= now) {
      forget(id, entry)
      return undefined
    }
    const state = entry.interaction.state
    if (entry.interaction.expiresAt <= now && (state === "pending" || state === "completed")) {
      entry.interaction = { ...entry.interaction, state: "expired" }
      dropContent(entry)
    }
    return entry
  }
  const withNow = <A>(f: (now: number) => A): Effect.Effect<A> =>
    Effect.clockWith((clock) => Effect.sync(() => f(clock.currentTimeMillisUnsafe())))

  return InteractionStore.of({
    create: (form, ttlMillis) =>
      Effect.flatMap(random.randomBytes(64), (bytes) =>
        Effect.clockWith((clock) => {
          const now = clock.currentTimeMillisUnsafe()
          const address = form.principal === undefined ? form.address : undefined
          const weight = formBytes(form)
          const refusal = () => full(form.principal, address) ?? heavy(form.principal, address, weight)
          if (refusal() !== undefined) settle(now)
          const refused = refusal()
          if (refused !== undefined) return Effect.fail(refused)
          const ttl = Math.max(1, Math.floor(ttlMillis))
          const interaction: Interaction = {
            id: base64url(bytes.subarray(0, 32)),
            csrfToken: base64url(bytes.subarray(32)),
            message: form.message,
            requestedSchema: form.requestedSchema,
            ...(form.principal === undefined ? {} : { principal: form.principal }),
            sealingKey: form.sealingKey,
            expiresAt: now + ttl,
            state: "pending"
          }
          add({
            interaction,
            address,
            content: undefined,
            formBytes: weight,
            forgetAt: now + ttl + Math.max(ttl, minimumTombstoneMillis)
          })
          return Effect.succeed(interaction)
        })),
    get: (id) => withNow((now) => current(id, now)?.interaction),
    complete: (id, sealed) =>
      withNow((now): CompleteOutcome => {
        const entry = current(id, now)
        if (entry === undefined) return "unknown"
        switch (entry.interaction.state) {
          case "expired":
            return "expired"
          case "completed":
          case "handedOut":
            return "alreadyCompleted"
          case "pending": {
            if (heavy(entry.interaction.principal, entry.address, sealed.length) !== undefined) {
              settle(now)
              if (heavy(entry.interaction.principal, entry.address, sealed.length) !== undefined) return "full"
            }
            entry.interaction = { ...entry.interaction, state: "completed" }
            entry.content = sealed
            weigh(entry, sealed.length)
            return "completed"
          }
        }
      }),
    take: (id) =>
      withNow((now) => {
        const entry = current(id, now)
        if (entry === undefined || entry.interaction.state !== "completed") return undefined
        const content = entry.content
        dropContent(entry)
        entry.interaction = { ...entry.interaction, state: "handedOut" }
        return content
      })
  })
}
