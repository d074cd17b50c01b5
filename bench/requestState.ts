/**
 * Benchmark of the sealed `requestState` hot path (packages/core/src/RequestState.ts):
 * one `seal` plus one `unseal` per round, for replay journals carrying 1, 3
 * and 10 form-elicitation answers, on a codec that decrypts every state (what
 * an instance does with a state another sealed: `issuedCacheBytes: 0`; the
 * target) and, beside it, on the default codec, whose retry to the instance
 * that sealed the state skips the decryption (`kept`).
 *
 * Run: `npm run bench:request-state`. Prints the median and p95 of the
 * seal+unseal time in microseconds over 2,000 rounds (after 2,000 warm-up
 * rounds) and the sealed size in bytes. Target: < 100 µs and < 1024 B for 3 answers.
 *
 * `bench/index.ts` (`npm run bench`) imports {@link runRequestStateBench} and
 * {@link formatRequestStateBench} to put the same numbers in its report.
 */
import { Effect } from "effect"
import { Aead, SecureRandom } from "effect/crypto"
import { Base64Url } from "effect/encoding"
import { pathToFileURL } from "node:url"
import { nativeXChaCha20Poly1305 } from "../packages/core/src/internal/nativeXChaCha.ts"
import { type Binding, KeyRing, RequestStateCodec } from "../packages/core/src/RequestState.ts"

const warmup = 2_000

// The XChaCha20-Poly1305 the codec's layer runs: node:crypto's where the
// runtime has it, else effect's pure TypeScript one.
const xchacha = nativeXChaCha20Poly1305 ?? Aead.xchacha20Poly1305.implementation!
const xchachaName = nativeXChaCha20Poly1305 === undefined ? "pure TypeScript" : "node:crypto"
const iterations = 2_000

const digest22 = () => Base64Url.encode(SecureRandom.randomBytesUnsafe(16)) // 22 characters

const journal = (answers: number) => {
  const entries: Record<string, unknown> = {}
  for (let i = 0; i < answers; i++) {
    entries[`ask_${i}`] = {
      d: digest22(),
      r: { action: "accept", content: { name: "Alice", email: "alice@example.com", age: 31 } }
    }
  }
  return {
    v: 1,
    round: answers,
    answers: entries,
    steps: {},
    pending: { [`ask_${answers}`]: { d: digest22() } }
  }
}

const binding: Binding = {
  method: "tools/call",
  target: "book_meeting",
  argumentsDigest: digest22(),
  audience: "https://mcp.example.com/mcp",
  principal: "user:alice@example.com"
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/** One row of the benchmark: times in µs, sizes in bytes. */
export interface RequestStateResult {
  readonly answers: number
  readonly median: number
  readonly p95: number
  readonly size: number
  readonly journalBytes: number
  readonly aead: number
  /** Median seal + unseal on the default codec, the unseal served from the states it keeps. */
  readonly kept: number
}

/** Sorted seal + unseal times of `codec` (µs) after a warm-up, and the sealed size. */
const roundTrips = (codec: RequestStateCodec["Service"], payload: unknown) =>
  Effect.gen(function*() {
    for (let i = 0; i < warmup; i++) {
      yield* codec.unseal(yield* codec.seal(payload, binding), binding)
    }
    const times: Array<number> = []
    let size = 0
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now()
      const state = yield* codec.seal(payload, binding)
      yield* codec.unseal(state, binding)
      times.push((performance.now() - t0) * 1000)
      size = state.length
    }
    return { times: times.sort((a, b) => a - b), size }
  })

const measure = (codec: RequestStateCodec["Service"], keeping: RequestStateCodec["Service"]) =>
  Effect.gen(function*() {
    const results: Array<RequestStateResult> = []
    for (const answers of [1, 3, 10]) {
      const payload = journal(answers)
      const { size, times } = yield* roundTrips(codec, payload)
      const kept = yield* roundTrips(keeping, payload)
      // Reference: the bare XChaCha20-Poly1305 encrypt + decrypt of a plaintext of
      // the same length (the implementation the Aead layer runs), i.e. the floor
      // under the envelope, JSON, expiry and base64url work.
      const plaintext = new TextEncoder().encode(JSON.stringify({ exp: Date.now(), p: payload }))
      const aad = new TextEncoder().encode(
        JSON.stringify(["mrtr/requestState", "v1", "bench", ...Object.values(binding)])
      )
      const key = SecureRandom.randomBytesUnsafe(32)
      const aeadTimes: Array<number> = []
      for (let i = 0; i < warmup + iterations; i++) {
        const t0 = performance.now()
        const nonce = SecureRandom.randomBytesUnsafe(24)
        xchacha.decrypt(key, nonce, xchacha.encrypt(key, nonce, plaintext, aad), aad)
        if (i >= warmup) aeadTimes.push((performance.now() - t0) * 1000)
      }
      aeadTimes.sort((a, b) => a - b)
      results.push({
        aead: percentile(aeadTimes, 50),
        answers,
        median: percentile(times, 50),
        p95: percentile(times, 95),
        kept: percentile(kept.times, 50),
        size,
        journalBytes: new TextEncoder().encode(JSON.stringify(payload)).length
      })
    }
    return results
  })

/** Runs the benchmark (synchronously, a second or so) and returns one row per journal size (1, 3, 10 answers). */
export const runRequestStateBench = (): ReadonlyArray<RequestStateResult> => {
  const keyRing = KeyRing.fromBytes([{ id: "bench", bytes: SecureRandom.randomBytesUnsafe(32) }])
  const codecOf = (issuedCacheBytes?: number) =>
    Effect.provide(Effect.service(RequestStateCodec), RequestStateCodec.layer({ keyRing, issuedCacheBytes }))
  return Effect.runSync(
    Effect.flatMap(Effect.all([codecOf(0), codecOf()]), ([codec, keeping]) => measure(codec, keeping))
  )
}

/** The report lines: one per row, then the target and PASS/MISS for 3 answers. */
export const formatRequestStateBench = (results: ReadonlyArray<RequestStateResult>): Array<string> => {
  const lines = [
    `requestState seal+unseal, XChaCha20-Poly1305 (${xchachaName}), ${iterations} rounds after ${warmup} warm-up (${process.version}); ` +
    "unseal decrypting (issuedCacheBytes: 0, as on another instance; the target), and kept (the default codec, retried where it was sealed)"
  ]
  for (const r of results) {
    lines.push(
      `  ${String(r.answers).padStart(2)} answer(s): journal ${String(r.journalBytes).padStart(5)} B  ` +
        `sealed ${String(r.size).padStart(5)} B  median ${r.median.toFixed(1).padStart(6)} µs  p95 ${
          r.p95.toFixed(1).padStart(6)
        } µs  (bare AEAD ${r.aead.toFixed(1)} µs; kept: ${r.kept.toFixed(1)} µs)`
    )
  }
  const three = results.find((r) => r.answers === 3)!
  const pass = three.median < 100 && three.size < 1024
  lines.push("target: < 100 µs and < 1024 B for 3 answers")
  lines.push(`${pass ? "PASS" : "MISS"}: ${three.median.toFixed(1)} µs, ${three.size} B`)
  return lines
}

// Standalone mode: `npm run bench:request-state`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const line of formatRequestStateBench(runRequestStateBench())) console.log(line)
}
