/**
 * Sealed `requestState`: the opaque string an `InputRequiredResult` hands the
 * client, which the client echoes back byte for byte on its retry.
 *
 * MCP 2026-07-28 (basic/patterns/mrtr) tells servers to treat `requestState`
 * as attacker-controlled, to protect its integrity when it affects behaviour,
 * to bind it to the authenticated principal, a short expiry, the originating
 * method and a digest of its key parameters, and to enforce one-time use on
 * the server. We carry the handler's replay journal in it, so it is sealed:
 *
 * - AEAD: XChaCha20-Poly1305 from `effect/crypto/Aead` (the pure TypeScript
 *   implementation vendored from `@noble/ciphers`), 32-byte keys, a fresh
 *   random 24-byte nonce per seal from `SecureRandom`. No crypto is written here.
 * - Envelope (ASCII, URL-safe, no padding):
 *
 *   ```text
 *   v2.<keyId>.<base64url(nonce[24] ‖ ciphertext ‖ tag[16])>
 *   ```
 *
 *   `v2` is the version tag, `keyId` names the key of the {@link KeyRing}
 *   that sealed it (`[A-Za-z0-9_-]{1,64}`). `v2` carries the engine's compact
 *   journal (`internal/journalWire.ts`); a `v1` state (the long-form journal
 *   of earlier releases) is refused like any unknown version.
 * - Associated data (authenticated, not transmitted): the UTF-8 JSON array
 *   `["mrtr/requestState", "v2", keyId, method, target, argumentsDigest,
 *   audience, principal | null]`. JSON string escaping makes the encoding
 *   unambiguous, and `null` (no principal) differs from every string.
 * - Plaintext: UTF-8 JSON `{ "exp": <epoch ms>, "jti"?: <id>, "c": <conversation id>, "p": <payload> }`
 *   (`c`, the same in every round of a conversation, is for telemetry: {@link CurrentConversation}).
 *   `exp` is checked against the `Clock` service (so `TestClock` drives it);
 *   `jti` is present in single-use mode only and is redeemed through the
 *   {@link ReplayGuard} service.
 *
 * Every rejection is the same {@link InvalidRequestState} value with one frozen
 * message, so a client learns nothing about why (the server answers JSON-RPC
 * `-32602`). The reason goes to a `Debug` log line and to the current span,
 * both under the key `mrtr.requestState.reason`, with one of the values:
 * `too-large`, `malformed`, `unknown-version`, `unknown-key`, `truncated`,
 * `decryption-failed` (tampered, other key, other binding), `payload-invalid`,
 * `expired`, `missing-jti`, `replayed`.
 *
 * A codec keeps the states it sealed, with their plaintext, until their retry
 * (`issuedCacheBytes`, `internal/issuedStates.ts`): a retry to the instance
 * that sealed its state skips the decryption, and every check after it runs
 * as for any other state (`mrtr_request_state_unsealed_total{source}` counts
 * both kinds).
 *
 * A single-use state that the {@link ReplayGuard} has no room to redeem is
 * not a rejection: it fails with the distinct {@link ReplayGuardFull} (and
 * counts in the `mrtr_replay_guard_full_total` metric).
 *
 The codec's keys and expiry are its options: nothing is read from the
 * environment unless the app asks for it with {@link RequestStateCodec.layerConfig}
 * (or `KeyRing.fromConfig`). The random per-process key of
 * {@link KeyRing.generate} is only the documented single-instance default.
 *
 * @since 0.1.0
 */
import { Clock, Config, Context, Duration, Effect, Layer, Metric, Option, Result, Schema, SchemaIssue } from "effect"
import { Aead, SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import type { Binding } from "./internal/binding.ts"
import * as IssuedStates from "./internal/issuedStates.ts"
import { EncodedJson } from "./internal/journalWire.ts"
import { nativeXChaCha20Poly1305 } from "./internal/nativeXChaCha.ts"
import { InvalidOption } from "./InvalidOption.ts"
import { KeyRing, type KeyRingEntry } from "./KeyRing.ts"
import { ReplayGuard, type ReplayGuardFull, type ReplayGuardUnavailable } from "./ReplayGuard.ts"

export {
  /**
   * @category models
   * @since 0.1.0
   */
  InvalidKeyRing,
  /**
   * @category models
   * @since 0.1.0
   */
  KeyRing,
  /**
   * @category models
   * @since 0.1.0
   */
  type KeyRingEntry,
  /**
   * @category models
   * @since 0.1.0
   */
  keysConfigName
} from "./KeyRing.ts"

export {
  /**
   * @category models
   * @since 0.1.0
   */
  ReplayGuard,
  /**
   * @category models
   * @since 0.2.0
   */
  replayGuardEntries,
  /**
   * @category models
   * @since 0.1.0
   */
  ReplayGuardFull,
  /**
   * @category models
   * @since 0.1.0
   */
  replayGuardFullTotal,
  /**
   * @category models
   * @since 0.1.0
   */
  type ReplayGuardMemoryOptions,
  /**
   * @category models
   * @since 0.1.0
   */
  replayGuardRedemptionsTotal,
  /**
   * @category models
   * @since 0.1.0
   */
  ReplayGuardUnavailable
} from "./ReplayGuard.ts"

// -----------------------------------------------------------------------------
// Binding
// -----------------------------------------------------------------------------

export type {
  /**
   * Everything a sealed `requestState` is bound to (see `internal/binding.ts`).
   *
   * @category models
   * @since 0.1.0
   */
  Binding
} from "./internal/binding.ts"

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

const invalidMessage = "Invalid requestState"

/**
 * A `requestState` that does not unseal: malformed base64url, unknown version
 * tag or key id, truncated, tampered, sealed with another key or for another
 * {@link Binding}, expired, oversized, or a single-use state redeemed twice.
 *
 * It has no fields and one frozen message, `"Invalid requestState"`, whatever
 * the cause, so it is safe to show to clients and gives no oracle. The server
 * answers JSON-RPC `-32602` (InvalidParams) with it. The actual reason is only
 * logged (level `Debug`) and set on the current span, under
 * `mrtr.requestState.reason`.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("reject state that fails verification").
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidRequestState extends Schema.TaggedError<InvalidRequestState>()("InvalidRequestState", {}) {
  override get message(): string {
    return invalidMessage
  }
}

/**
 * Sealing would produce a `requestState` longer than the codec's `maxSize`
 * (bytes of the sealed ASCII string, default 64 KiB). Raised by
 * {@link RequestStateCodec} `seal`, before encrypting.
 *
 * `size` is the length the sealed string would have had; `maxSize` the cap,
 * both in bytes. It is a server-side failure (JSON-RPC `-32603`): the handler
 * put more into its journal than the server is configured to carry.
 *
 * @category errors
 * @since 0.1.0
 */
export class RequestStateTooLarge extends Schema.TaggedError<RequestStateTooLarge>()("RequestStateTooLarge", {
  size: Schema.Number,
  maxSize: Schema.Number
}) {
  override get message(): string {
    return `The sealed requestState (${this.size} bytes) would exceed the cap of ${this.maxSize} bytes`
  }
}

/**
 * Name of the optional `Duration` variable read by
 * {@link RequestStateCodec.layerConfig} (e.g. `"5 minutes"`).
 *
 * @category config
 * @since 0.1.0
 */
export const ttlConfigName = "MRTR_REQUEST_STATE_TTL"

// -----------------------------------------------------------------------------
// RequestStateCodec
// -----------------------------------------------------------------------------

/**
 * Options of {@link RequestStateCodec.make} and {@link RequestStateCodec.layer}.
 *
 * An option out of range fails the codec's construction with {@link InvalidOption}.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestStateCodecOptions<E = never> {
  /**
   * The keys, or an effect producing them (e.g. `KeyRing.fromConfig`).
   */
  readonly keyRing: KeyRing | Effect.Effect<KeyRing, E>
  /**
   * Lifetime of a sealed state, finite and positive.
   *
   * @default "10 minutes" ({@link defaultTtl})
   */
  readonly ttl?: Duration.Input | undefined
  /**
   * Cap on the sealed string, in bytes (it is ASCII). Sealing above it fails with {@link RequestStateTooLarge}; a
   * longer state is rejected at unseal before any decoding.
   *
   * @default 65_536
   */
  readonly maxSize?: number | undefined
  /**
   * Embed a random `jti` and redeem it through {@link ReplayGuard} at unseal, so a state unseals at most once. The
   * guard is taken from the context when one is provided, otherwise an in-memory one is created.
   *
   * @default false
   */
  readonly singleUse?: boolean | undefined
  /**
   * How much heap (an estimate, in bytes) the codec may spend keeping the states it sealed, with their plaintext,
   * until their retry; `0` keeps none. A retry that comes back to the codec that sealed its state skips the base64url
   * decoding and the decryption (its plaintext is parsed again, so it gets a value of its own); the binding, the
   * expiry and single use are checked exactly as for any other state. Other instances decrypt as usual, so a fleet
   * without affinity gains less. A non-negative safe integer.
   *
   * @default 524_288 (512 KiB, {@link defaultIssuedCacheBytes})
   * @since 0.3.0
   */
  readonly issuedCacheBytes?: number | undefined
}

const ttlConfigError = (message: string): Config.ConfigError =>
  new Config.ConfigError(
    new Schema.SchemaError(new SchemaIssue.Pointer([ttlConfigName], new SchemaIssue.InvalidValue({ message })))
  )

/**
 * The optional `MRTR_REQUEST_STATE_TTL` (a Duration, e.g. `"5 minutes"`;
 * default 10 minutes) through `effect/Config`; fails with a `ConfigError`
 * unless it is finite and positive. What {@link RequestStateCodec.layerConfig}
 * and `McpServer.layerConfig` read.
 *
 * @category config
 * @since 0.4.0
 */
export const ttlFromConfig: Effect.Effect<Duration.Duration, Config.ConfigError> = Effect.gen(function*() {
  const ttl = yield* Config.Duration(ttlConfigName).pipe(Config.withDefault(defaultTtl))
  if (!Duration.isFinite(ttl) || !(Duration.toMillis(ttl) > 0)) {
    return yield* Effect.fail(ttlConfigError("must be a finite, positive duration"))
  }
  return ttl
})

/**
 * The lifetime of a sealed state from codec options: `ttl`, else
 * {@link defaultTtl}; fails with {@link InvalidOption} naming `layer` when it
 * is not a finite, positive duration.
 *
 * @category config
 * @since 0.4.0
 */
export const ttlOf = (
  ttl: Duration.Input | undefined,
  layer = "RequestStateCodec"
): Effect.Effect<Duration.Duration, InvalidOption> => {
  if (ttl === undefined) return Effect.succeed(defaultTtl)
  const parsed = Duration.fromInput(ttl)
  return Option.isSome(parsed) && Duration.isFinite(parsed.value) && Duration.toMillis(parsed.value) > 0
    ? Effect.succeed(parsed.value)
    : Effect.fail(InvalidOption.of(layer, "ttl", ttl, "a finite, positive duration"))
}

/**
 * Default lifetime of a sealed `requestState`: 10 minutes.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultTtl: Duration.Duration = Duration.minutes(10)

/**
 * Default cap on a sealed `requestState`: 64 KiB (65,536 bytes of the string).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxSize = 65_536

/**
 * Default heap budget of the states a codec keeps until their retry
 * (`issuedCacheBytes`): 512 KiB, an estimate of the heap held (the sealed
 * string, twice its plaintext, and 256 bytes per entry): about 800 suspended
 * one-question conversations, or about 150 of sixteen answers.
 *
 * @category constants
 * @since 0.3.0
 */
export const defaultIssuedCacheBytes = 524_288

const encoder = new TextEncoder()
const version = "v2"
const aadTag = "mrtr/requestState"
// What a server keeps sealed in its own stores (`sealStored`): never accepted as a `requestState`, nor the reverse.
const storedAadTag = "mrtr/stored"
const nonceLength = 24
const tagLength = 16
const jtiLength = 16
const base64UrlValid = /^[A-Za-z0-9_-]*$/
const utf8 = new TextDecoder("utf-8", { fatal: true })
// Base64url alphabet index, to check that the unused low bits of the last
// character are zero: otherwise several strings decode to the same bytes.
const base64UrlIndex = (() => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  const index = new Int8Array(128).fill(-1)
  for (let i = 0; i < alphabet.length; i++) index[alphabet.charCodeAt(i)] = i
  return index
})()

const isCanonicalBase64Url = (s: string): boolean => {
  const rest = s.length % 4
  if (rest === 1 || !base64UrlValid.test(s)) return false
  if (rest === 0) return true
  const last = base64UrlIndex[s.charCodeAt(s.length - 1)]!
  return (last & (rest === 2 ? 0x0f : 0x03)) === 0
}

const base64UrlLength = (bytes: number): number => Math.floor(bytes / 3) * 4 + [0, 2, 3][bytes % 3]!

// Base64url: `effect/encoding` everywhere, but the runtime's native `Buffer`
// codec when there is one (Node.js, Bun, Deno): on the benchmark machine
// Effect's decoder takes ~12 µs for a 700-character state, `Buffer` ~1 µs.
// Both produce the same unpadded output, and decoding only ever sees strings
// that `isCanonicalBase64Url` accepted, which both decode identically (Buffer
// alone would silently skip invalid characters).
interface NativeBuffer {
  readonly from: {
    (bytes: ArrayBufferLike, byteOffset: number, length: number): Uint8Array & {
      toString(encoding: "base64url"): string
    }
    (text: string, encoding: "base64url"): Uint8Array
  }
}
const nativeBuffer = (globalThis as { readonly Buffer?: NativeBuffer }).Buffer

const encodeBase64Url: (bytes: Uint8Array) => string = nativeBuffer === undefined
  ? Base64Url.encode
  : (bytes) => nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")

const decodeBase64Url = (text: string): Uint8Array | undefined => {
  if (!isCanonicalBase64Url(text)) return undefined
  if (nativeBuffer !== undefined) return nativeBuffer.from(text, "base64url")
  const decoded = Base64Url.decode(text)
  return Result.isSuccess(decoded) ? decoded.success : undefined
}

const associatedData = (keyId: string, binding: Binding, tag: string = aadTag): Uint8Array =>
  encoder.encode(JSON.stringify([
    tag,
    version,
    keyId,
    binding.method,
    binding.target,
    binding.argumentsDigest,
    binding.audience,
    binding.principal ?? null
  ]))

type RejectionReason =
  | "too-large"
  | "malformed"
  | "unknown-version"
  | "unknown-key"
  | "truncated"
  | "decryption-failed"
  | "payload-invalid"
  | "expired"
  | "missing-jti"
  | "replayed"

/**
 * Counter of rejected `requestState`, by `reason` (the values listed in the
 * module header). Clients only ever see the one frozen `-32602`.
 *
 * @category metrics
 * @since 0.1.0
 */
export const rejectionsTotal = Metric.counter("mrtr_request_state_rejections_total", {
  description: "requestState rejected, by reason (the client sees one frozen -32602 Invalid requestState)",
  incremental: true
})

/**
 * Counter of `requestState`s whose plaintext was read, by `source`: `kept`
 * (this instance sealed it and kept it until its retry: no decryption, see
 * `issuedCacheBytes`) or `decrypted` (any other state that decrypted: sealed
 * elsewhere, pushed out of the budget, or retried a second time). `kept`
 * over the sum is the share of retries the kept states served. Counted
 * before the expiry and single-use checks (refusals by those count in
 * {@link rejectionsTotal} too).
 *
 * @category metrics
 * @since 0.3.0
 */
export const unsealedTotal = Metric.counter("mrtr_request_state_unsealed_total", {
  description: "requestState plaintexts read, by source (kept: sealed here and kept until the retry; decrypted)",
  incremental: true
})
const countKept = Metric.update(Metric.withAttributes(unsealedTotal, { source: "kept" }), 1)
const countDecrypted = Metric.update(Metric.withAttributes(unsealedTotal, { source: "decrypted" }), 1)

const reject = (reason: RejectionReason): Effect.Effect<never, InvalidRequestState> =>
  Effect.andThen(
    Effect.andThen(
      Effect.andThen(
        Effect.annotateCurrentSpan("mrtr.requestState.reason", reason),
        Metric.update(Metric.withAttributes(rejectionsTotal, { reason }), 1)
      ),
      Effect.annotateLogs(Effect.logDebug("requestState rejected"), "mrtr.requestState.reason", reason)
    ),
    Effect.fail(new InvalidRequestState())
  )

interface Sealed {
  readonly exp: number
  readonly jti?: string
  /** The conversation id (12 base64url characters), the same in every round's state of one conversation. */
  readonly c?: string
  readonly p: unknown
}

/**
 * The id of the conversation the current request belongs to, for telemetry:
 * a cell the caller provides around one request; `unseal` fills it from the
 * state (the `c` field of the plaintext), `seal` reuses it, or draws a new
 * one (12 base64url characters, from the nonce's randomness) on a first
 * round. So every round of one conversation carries the same id, whichever
 * instance serves it. Not provided (the default), nothing is recorded.
 *
 * @category services
 * @since 0.1.0
 */
export const CurrentConversation = Context.Reference<{ id: string | undefined } | undefined>(
  "@mrtr/core/RequestState/CurrentConversation",
  { defaultValue: () => undefined }
)

// The plaintext has passed AEAD verification, so it is our own output; this is
// defence in depth against a key shared with some other format.
const parsePlaintext = (bytes: Uint8Array): Sealed | undefined => {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return undefined
  }
  return parseText(text)
}

/** The plaintext's text as `Sealed`: parsed afresh on every call, so no caller shares its objects with another. */
const parseText = (text: string): Sealed | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const record = value as Record<string, unknown>
  if (typeof record.exp !== "number" || !Number.isFinite(record.exp)) return undefined
  if (record.jti !== undefined && typeof record.jti !== "string") return undefined
  return record as unknown as Sealed
}

const makeCodec = Effect.fnUntraced(function*<E>(
  options: RequestStateCodecOptions<E>
): Effect.fn.Return<RequestStateCodec["Service"], E | InvalidOption, Aead.Aead | SecureRandom.SecureRandom> {
  const ttl = yield* ttlOf(options.ttl)
  const ttlMillis = Duration.toMillis(ttl)
  const maxSize = options.maxSize ?? defaultMaxSize
  if (!Number.isSafeInteger(maxSize) || maxSize < 1) {
    return yield* InvalidOption.of("RequestStateCodec", "maxSize", maxSize, "a positive integer")
  }
  const issuedCacheBytes = options.issuedCacheBytes ?? defaultIssuedCacheBytes
  if (!Number.isSafeInteger(issuedCacheBytes) || issuedCacheBytes < 0) {
    return yield* InvalidOption.of(
      "RequestStateCodec",
      "issuedCacheBytes",
      issuedCacheBytes,
      "a non-negative safe integer"
    )
  }
  const keyRing = Effect.isEffect(options.keyRing) ? yield* options.keyRing : options.keyRing
  const singleUse = options.singleUse === true
  const issued = new IssuedStates.IssuedStates<string>(issuedCacheBytes)
  const guard = singleUse
    ? Option.getOrUndefined(yield* Effect.serviceOption(ReplayGuard)) ?? (yield* ReplayGuard.makeMemory())
    : undefined
  const aead = yield* Aead.Aead
  const random = yield* SecureRandom.SecureRandom
  const current = keyRing.keys[0]
  const currentHeader = `${version}.${current.id}.`
  const byId = new Map<string, KeyRingEntry>(keyRing.keys.map((entry) => [entry.id, entry]))
  const randomSize = singleUse ? nonceLength + jtiLength : nonceLength

  // Nonces (and jtis) are drawn from a pool of `SecureRandom` bytes refilled
  // 64 seals at a time: one `getRandomValues` call per seal costs ~9 µs on the
  // benchmark machine. Bytes are handed out once; the check-and-take runs in
  // one synchronous step, and a concurrent refill only discards a pool.
  const poolSize = randomSize * 64
  let pool: Uint8Array = new Uint8Array(0)
  let poolOffset = 0
  const takeRandom: Effect.Effect<Uint8Array> = Effect.suspend(() => {
    if (poolOffset + randomSize <= pool.length) {
      const bytes = pool.subarray(poolOffset, poolOffset + randomSize)
      poolOffset += randomSize
      return Effect.succeed(bytes)
    }
    return Effect.map(random.randomBytes(poolSize), (fresh) => {
      pool = fresh
      poolOffset = randomSize
      return fresh.subarray(0, randomSize)
    })
  })

  // Written with combinators rather than generators: this is the hot path.
  const seal = (payload: unknown, binding: Binding): Effect.Effect<string, RequestStateTooLarge> =>
    Effect.flatMap(takeRandom, (bytes) =>
      Effect.contextWith((context: Context.Context<never>) => {
        const clock = Context.get(context, Clock.Clock)
        const conversation = Context.get(context, CurrentConversation)
        const exp = clock.currentTimeMillisUnsafe() + ttlMillis
        const c = conversation?.id ?? encodeBase64Url(bytes.subarray(0, 9))
        if (conversation !== undefined) conversation.id = c
        const jti = singleUse ? encodeBase64Url(bytes.subarray(nonceLength)) : undefined
        // A payload the engine serialized already (to measure it) is spliced in, not serialized again:
        // the same text as `JSON.stringify` of the `Sealed` object.
        const text = payload instanceof EncodedJson
          ? `{"exp":${JSON.stringify(exp)}${jti === undefined ? "" : `,"jti":"${jti}"`},"c":${
            JSON.stringify(c)
          },"p":${payload.json}}`
          : JSON.stringify(
            jti === undefined ? { exp, c, p: payload } satisfies Sealed : { exp, jti, c, p: payload } satisfies Sealed
          )
        const plaintext = encoder.encode(text)
        const size = currentHeader.length + base64UrlLength(nonceLength + plaintext.length + tagLength)
        if (size > maxSize) {
          return Effect.fail(new RequestStateTooLarge({ size, maxSize }))
        }
        const nonce = bytes.subarray(0, nonceLength)
        return Effect.map(
          Effect.orDie(aead.encrypt(current.key, plaintext, { nonce, aad: associatedData(current.id, binding) })),
          (ciphertext) => {
            const body = new Uint8Array(nonceLength + ciphertext.length)
            body.set(nonce, 0)
            body.set(ciphertext, nonceLength)
            const state = currentHeader + encodeBase64Url(body)
            if (issuedCacheBytes > 0) issued.remember(state, text, binding, IssuedStates.cost(state, text.length))
            return state
          }
        )
      }))

  const open = (
    sealed: Sealed,
    principal: string | undefined
  ): Effect.Effect<unknown, InvalidRequestState | ReplayGuardFull | ReplayGuardUnavailable> =>
    Effect.clockWith((clock) => {
      if (clock.currentTimeMillisUnsafe() >= sealed.exp) return reject("expired")
      if (guard === undefined) return Effect.succeed(sealed.p)
      const jti = sealed.jti
      if (jti === undefined) return reject("missing-jti")
      return Effect.flatMap(
        guard.redeem(jti, sealed.exp, principal),
        (first) => first ? Effect.succeed(sealed.p) : reject("replayed")
      )
    })

  // The state's conversation id goes to the request's `CurrentConversation` cell (when there is one), then `open`.
  const opened = (sealed: Sealed, principal: string | undefined) =>
    typeof sealed.c === "string"
      ? Effect.contextWith((context: Context.Context<never>) => {
        const conversation = Context.get(context, CurrentConversation)
        if (conversation !== undefined) conversation.id = sealed.c
        return open(sealed, principal)
      })
      : open(sealed, principal)

  const unseal = (
    state: string,
    binding: Binding
  ): Effect.Effect<unknown, InvalidRequestState | ReplayGuardFull | ReplayGuardUnavailable> =>
    Effect.suspend(() => {
      if (typeof state !== "string") return reject("malformed")
      if (state.length > maxSize) return reject("too-large")
      // A state this codec sealed, retried here for the same binding: what decrypting it would give (internal/issuedStates.ts).
      const kept = issued.take(state, binding)
      if (kept !== undefined) {
        const sealed = parseText(kept)
        return sealed === undefined
          ? reject("payload-invalid")
          : Effect.andThen(countKept, opened(sealed, binding.principal))
      }
      const first = state.indexOf(".")
      const second = first === -1 ? -1 : state.indexOf(".", first + 1)
      if (second === -1 || state.indexOf(".", second + 1) !== -1) return reject("malformed")
      if (state.slice(0, first) !== version) return reject("unknown-version")
      const keyId = state.slice(first + 1, second)
      const entry = byId.get(keyId)
      if (entry === undefined) return reject("unknown-key")
      const body = decodeBase64Url(state.slice(second + 1))
      if (body === undefined) return reject("malformed")
      if (body.length < nonceLength + tagLength) return reject("truncated")
      return Effect.matchEffect(
        aead.decrypt(entry.key, body.subarray(nonceLength), {
          nonce: body.subarray(0, nonceLength),
          aad: associatedData(keyId, binding)
        }),
        {
          onFailure: () => reject("decryption-failed"),
          onSuccess: (plaintext) => {
            const sealed = parsePlaintext(plaintext)
            return sealed === undefined
              ? reject("payload-invalid")
              : Effect.andThen(countDecrypted, opened(sealed, binding.principal))
          }
        }
      )
    })

  // Server-kept values: the same envelope under another associated-data tag; no expiry, no jti, no size bound, not kept.
  const sealStored = (payload: unknown, binding: Binding): Effect.Effect<string> =>
    Effect.flatMap(takeRandom, (bytes) => {
      const nonce = bytes.subarray(0, nonceLength)
      return Effect.map(
        Effect.orDie(aead.encrypt(current.key, encoder.encode(JSON.stringify(payload)), {
          nonce,
          aad: associatedData(current.id, binding, storedAadTag)
        })),
        (ciphertext) => {
          const body = new Uint8Array(nonceLength + ciphertext.length)
          body.set(nonce, 0)
          body.set(ciphertext, nonceLength)
          return currentHeader + encodeBase64Url(body)
        }
      )
    })

  const unsealStored = (sealed: string, binding: Binding): Effect.Effect<unknown, InvalidRequestState> =>
    Effect.suspend(() => {
      const invalid = Effect.fail(new InvalidRequestState())
      if (typeof sealed !== "string") return invalid
      const parts = sealed.split(".")
      if (parts.length !== 3 || parts[0] !== version) return invalid
      const entry = byId.get(parts[1]!)
      const body = entry === undefined ? undefined : decodeBase64Url(parts[2]!)
      if (entry === undefined || body === undefined || body.length < nonceLength + tagLength) return invalid
      return Effect.matchEffect(
        aead.decrypt(entry.key, body.subarray(nonceLength), {
          nonce: body.subarray(0, nonceLength),
          aad: associatedData(entry.id, binding, storedAadTag)
        }),
        {
          onFailure: () => invalid,
          onSuccess: (plaintext) => {
            try {
              return Effect.succeed(JSON.parse(utf8.decode(plaintext)) as unknown)
            } catch {
              return invalid
            }
          }
        }
      )
    })

  return RequestStateCodec.of({ seal, unseal, sealStored, unsealStored })
})

// XChaCha20-Poly1305 on `node:crypto` where the runtime has it (same bytes,
// about twice as fast), else effect's pure TypeScript implementation.
const cryptoLayer = Aead.layerWebCryptoWith(
  nativeXChaCha20Poly1305 === undefined ? {} : { implementations: { xchacha20Poly1305: nativeXChaCha20Poly1305 } }
).pipe(Layer.provideMerge(SecureRandom.layerWebCrypto))

/**
 * Seals and unseals `requestState` (see the module header for the envelope).
 *
 * - `seal(payload, binding)`: `payload` is a JSON value (a non-JSON value,
 *   e.g. a cycle or a `bigint`, is a defect). Returns
 *   `v2.<keyId>.<base64url(nonce ‖ ciphertext ‖ tag)>`, sealed with the
 *   current key of the ring and expiring `ttl` after the `Clock`'s now. Fails
 *   with {@link RequestStateTooLarge} when the string would exceed `maxSize`.
 * - `unseal(state, binding)`: returns the payload when `state` was sealed by a
 *   key of the ring for the same {@link Binding}, has not expired (`now < exp`
 *   on the `Clock`) and, in single-use mode, was not redeemed before. Every
 *   other case fails with the same {@link InvalidRequestState}, except a
 *   single-use state the guard has no room for: {@link ReplayGuardFull}.
 *
 * - `sealStored(payload, binding)`: seals a JSON value the server keeps in
 *   a store of its own (a task's journal in its `TaskStore`), with the same
 *   key ring and envelope, under associated data of its own (a stored value
 *   is never accepted as a `requestState`, nor the reverse): no expiry, no
 *   single use, no `maxSize`. Keep a key in the ring as long as values
 *   sealed with it live (a task's TTL).
 * - `unsealStored(sealed, binding)`: its payload, for the same `binding`
 *   and a key of the ring; anything else fails with
 *   {@link InvalidRequestState}.
 *
 * All run synchronously (no WebCrypto promise on the hot path):
 * XChaCha20-Poly1305 on `node:crypto`'s ChaCha20-Poly1305 where the runtime
 * has it (Node.js 20.16 and later), else effect's pure TypeScript
 * implementation; the bytes are the same.
 *
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("requestState ... protect its
 * integrity ... bind ... a short expiry ... one-time use").
 *
 * @category services
 * @since 0.1.0
 */
export class RequestStateCodec extends Context.Service<RequestStateCodec, {
  readonly seal: (payload: unknown, binding: Binding) => Effect.Effect<string, RequestStateTooLarge>
  readonly unseal: (
    state: string,
    binding: Binding
  ) => Effect.Effect<unknown, InvalidRequestState | ReplayGuardFull | ReplayGuardUnavailable>
  readonly sealStored: (payload: unknown, binding: Binding) => Effect.Effect<string>
  readonly unsealStored: (sealed: string, binding: Binding) => Effect.Effect<unknown, InvalidRequestState>
}>()("@mrtr/core/RequestState/RequestStateCodec") {
  /**
   * Builds the service on the `Aead` and `SecureRandom` services of the
   * context. Fails with {@link InvalidOption} for an invalid `ttl`,
   * `maxSize` or `issuedCacheBytes`, or with the error of an effectful
   * `keyRing`.
   *
   * @since 0.1.0
   */
  static readonly make: <E = never>(
    options: RequestStateCodecOptions<E>
  ) => Effect.Effect<RequestStateCodec["Service"], E | InvalidOption, Aead.Aead | SecureRandom.SecureRandom> = makeCodec

  /**
   * A layer of the codec with its own `Aead` (`Aead.layerWebCryptoWith`, with
   * XChaCha20-Poly1305 on `node:crypto` where available) and
   * `SecureRandom.layerWebCrypto`, so it has no requirements. In single-use
   * mode it uses a provided {@link ReplayGuard} if any, else an in-memory one.
   *
   * @since 0.1.0
   */
  static readonly layer = <E = never>(
    options: RequestStateCodecOptions<E>
  ): Layer.Layer<RequestStateCodec, E | InvalidOption> =>
    Layer.effect(RequestStateCodec, makeCodec(options).pipe(Effect.provide(cryptoLayer)))

  /**
   * The codec configured from the environment: keys from
   * `MRTR_REQUEST_STATE_KEYS` ({@link KeyRing.fromConfig}, a random
   * per-process key when absent), lifetime from the optional Duration
   * `MRTR_REQUEST_STATE_TTL` (default 10 minutes; must be finite and
   * positive), default `maxSize`, not single-use. Fails with a `ConfigError`.
   *
   * @since 0.1.0
   */
  static readonly layerConfig: Layer.Layer<RequestStateCodec, Config.ConfigError | InvalidOption> = Layer.unwrap(
    Effect.map(ttlFromConfig, (ttl) => RequestStateCodec.layer({ keyRing: KeyRing.fromConfig, ttl }))
  )
}
