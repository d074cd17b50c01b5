/**
 * `Elicitation.secure` through the engine, round by round: the URL-mode
 * elicitation carries the page of a real in-memory InteractionStore; an
 * acceptance before the page is completed gets the same elicitation again; a
 * completed page resumes the handler with the decoded value, handed out once;
 * later rounds replay it; the principal is bound; an expired page and a value
 * the schema refuses are typed failures.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ClientCapabilities, InputRequiredResult } from "@mrtr/protocol/Schema"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Layer, Schema } from "effect"
import { Digest, SecureRandom } from "effect/crypto"
import { TestClock } from "effect/testing"
import { Engine, InteractionLinks, InteractionSeal } from "../src/engine/index.ts"
import {
  Elicitation,
  ElicitationDeclined,
  InteractionStore,
  InteractionUnavailable,
  MissingClientCapability,
  RoundLimitExceeded,
  UserIdentityRequired
} from "../src/index.ts"
import { codecLayer, fixedKeys } from "./fixtures.ts"

const URL_CAPS: ClientCapabilities = { elicitation: { form: {}, url: {} } }

const ApiKey = Schema.Struct({
  api_key: Schema.String.check(Schema.isMinLength(8)).annotate({ title: "API key" })
})

const base = { method: "tools/call", target: "connect", arguments: {}, audience: "test", clientCapabilities: URL_CAPS }

/** The page's links at `base`; by default a page that identifies its users and acknowledges a single user. */
const linksAt = (
  base: string,
  identity: { readonly identifiesUsers?: boolean; readonly singleUser?: boolean } = {
    identifiesUsers: true,
    singleUser: true
  }
) =>
  Layer.succeed(
    InteractionLinks.InteractionLinks,
    InteractionLinks.InteractionLinks.of({ urlOf: (id) => Effect.succeed(`${base}/i/${id}`), ...identity })
  )

const links = linksAt("https://mcp.example.com")

/** Rounds share one store (as a server instance's rounds do); each round has a fresh codec. */
const withStore = <A, E>(f: (store: InteractionStore.InteractionStore["Service"]) => Effect.Effect<A, E, any>) =>
  Effect.gen(function*() {
    const store = yield* InteractionStore.InteractionStore
    return yield* f(store).pipe(
      Effect.provideService(InteractionStore.InteractionStore, store),
      Effect.provide(links)
    )
  }).pipe(Effect.provide(InteractionStore.InteractionStore.layerMemory())) as Effect.Effect<A, E>

const round = <A, E>(handler: Effect.Effect<A, E, any>, request: Partial<Engine.Request> = {}) =>
  Engine.run(handler, { ...base, ...request }).pipe(
    Effect.provide(Layer.mergeAll(codecLayer(fixedKeys), Digest.layerWebCrypto))
  ) as Effect.Effect<Engine.Outcome<A>, E | Engine.RunError>

const inputRequired = <A>(outcome: Engine.Outcome<A>): InputRequiredResult => {
  assert.strictEqual(outcome._tag, "InputRequired")
  if (outcome._tag !== "InputRequired") throw new Error("unreachable")
  validateWire("InputRequiredResult", outcome.result)
  return outcome.result
}

const idOf = (result: InputRequiredResult, base = "https://mcp.example.com"): string => {
  const params = result.inputRequests?.["api_key"]?.params as { mode: string; url: string }
  assert.strictEqual(params.mode, "url")
  assert.isTrue(params.url.startsWith(`${base}/i/`), params.url)
  return params.url.slice(`${base}/i/`.length)
}

/** What the page does on a valid submit: seal the value to the interaction's key, then complete it. */
const submit = (store: InteractionStore.InteractionStore["Service"], id: string, content: Record<string, unknown>) =>
  Effect.gen(function*() {
    const interaction = yield* store.get(id)
    assert.isDefined(interaction)
    return yield* store.complete(id, yield* InteractionSeal.seal(interaction!.sealingKey, id, content))
  })

const connect = Effect.gen(function*() {
  const { api_key } = yield* Elicitation.secure({ key: "api_key", message: "Paste your Acme API key", schema: ApiKey })
  return `connected with ${api_key.length} characters`
})

const accepted = { api_key: { action: "accept" } } as const

describe("Elicitation.secure", () => {
  it.effect("asks in URL mode, asks again until the page is completed, then resumes with the value once", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const first = inputRequired(yield* round(connect))
        const request = first.inputRequests?.["api_key"]
        assert.deepStrictEqual(Object.keys(first.inputRequests ?? {}), ["api_key"])
        assert.strictEqual(request?.method, "elicitation/create")
        assert.strictEqual((request?.params as { message: string }).message, "Paste your Acme API key")
        const id = idOf(first)
        const interaction = yield* store.get(id)
        assert.strictEqual(interaction?.state, "pending")
        assert.deepStrictEqual(interaction?.requestedSchema.required, ["api_key"])
        assert.strictEqual(interaction?.message, "Paste your Acme API key")

        // the user consented but has not completed the page: the same URL elicitation again
        const again = inputRequired(
          yield* round(connect, { inputResponses: accepted, requestState: first.requestState })
        )
        assert.deepStrictEqual(again.inputRequests, first.inputRequests)
        assert.notStrictEqual(again.requestState, first.requestState)

        assert.strictEqual(yield* submit(store, id, { api_key: "sk-12345678" }), "completed")
        const done = yield* round(connect, { inputResponses: accepted, requestState: again.requestState })
        assert.deepStrictEqual(done, { _tag: "Complete", value: "connected with 11 characters", round: 2 })
        assert.strictEqual((yield* store.get(id))?.state, "handedOut")
        assert.strictEqual(yield* store.take(id), undefined, "handed out once and deleted")

        // an old state replayed after the value was handed out cannot get it again
        const replayed = yield* Effect.flip(
          round(connect, { inputResponses: accepted, requestState: again.requestState })
        )
        assert.instanceOf(replayed, InteractionUnavailable)
        assert.strictEqual(replayed.reason, "handedOut")
      })
    ))

  it.effect("the store holds the value only sealed to the interaction's key; a value sealed otherwise is never handed on", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const first = inputRequired(yield* round(connect))
        const id = idOf(first)
        const interaction = yield* store.get(id)
        assert.match(interaction!.sealingKey, /^[A-Za-z0-9_-]{43}$/)
        // the private key is in the journal (sealed in requestState), never in the store or the request
        assert.notInclude(JSON.stringify(interaction), first.requestState ?? "")
        const sealed = yield* InteractionSeal.seal(interaction!.sealingKey, id, { api_key: "sk-12345678" })
        assert.notInclude(sealed, "sk-12345678")
        assert.notInclude(Buffer.from(sealed.slice(3), "base64url").toString("latin1"), "sk-12345678")
        // a value in clear (what the store held before) is not accepted as the page's
        assert.strictEqual(yield* store.complete(id, JSON.stringify({ api_key: "sk-attacker" })), "completed")
        const exit = yield* Effect.exit(round(connect, { inputResponses: accepted, requestState: first.requestState }))
        assert.isTrue(exit._tag === "Failure" && !JSON.stringify(exit).includes("connected"), String(exit))

        // sealed to this interaction's key but for another interaction id: refused too
        const other = inputRequired(yield* round(connect))
        const otherId = idOf(other)
        const otherKey = (yield* store.get(otherId))!.sealingKey
        const moved = yield* InteractionSeal.seal(otherKey, id, { api_key: "sk-12345678" })
        assert.strictEqual(yield* store.complete(otherId, moved), "completed")
        const refused = yield* Effect.exit(
          round(connect, { inputResponses: accepted, requestState: other.requestState })
        )
        assert.strictEqual(refused._tag, "Failure")
      })
    ))

  it.effect("rounds that only wait for the page do not count toward maxRounds; other rounds still do", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const limited = <A, E>(handler: Effect.Effect<A, E, any>, request: Partial<Engine.Request> = {}) =>
          round(handler, request).pipe(
            Effect.provideService(Engine.Limits, { maxRounds: 1, maxJournalBytes: 32 * 1024 })
          )
        const handler = Effect.gen(function*() {
          const { api_key } = yield* Elicitation.secure({ key: "api_key", message: "Key?", schema: ApiKey })
          const { ok } = yield* Elicitation.form({
            key: "ok",
            message: "Go?",
            schema: Schema.Struct({ ok: Schema.Boolean })
          })
          const { again } = yield* Elicitation.form({
            key: "again",
            message: "Sure?",
            schema: Schema.Struct({ again: Schema.Boolean })
          })
          return `${api_key}:${ok}:${again}`
        })
        let result = inputRequired(yield* limited(handler))
        // six retries before the page is completed: more than maxRounds (1), none counted
        for (let i = 0; i < 6; i++) {
          result = inputRequired(
            yield* limited(handler, { inputResponses: accepted, requestState: result.requestState })
          )
          assert.deepStrictEqual(Object.keys(result.inputRequests ?? {}), ["api_key"])
        }
        yield* submit(store, idOf(result), { api_key: "sk-abcdefgh" })
        result = inputRequired(yield* limited(handler, { inputResponses: accepted, requestState: result.requestState }))
        assert.deepStrictEqual(Object.keys(result.inputRequests ?? {}), ["ok"])
        // the next counted round is one too many
        const tooMany = yield* Effect.flip(
          limited(handler, {
            inputResponses: { ok: { action: "accept", content: { ok: true } } },
            requestState: result.requestState
          })
        )
        assert.instanceOf(tooMany, RoundLimitExceeded)
      })
    ))

  it.effect("later rounds of the same conversation replay the value from the sealed journal", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const handler = Effect.gen(function*() {
          const { api_key } = yield* Elicitation.secure({ key: "api_key", message: "Key?", schema: ApiKey })
          const { ok } = yield* Elicitation.form({
            key: "ok",
            message: "Go?",
            schema: Schema.Struct({ ok: Schema.Boolean })
          })
          return `${api_key}:${ok}`
        })
        const first = inputRequired(yield* round(handler))
        yield* submit(store, idOf(first), { api_key: "sk-abcdefgh" })
        const second = inputRequired(
          yield* round(handler, { inputResponses: accepted, requestState: first.requestState })
        )
        assert.deepStrictEqual(Object.keys(second.inputRequests ?? {}), ["ok"])
        const done = yield* round(handler, {
          inputResponses: { ok: { action: "accept", content: { ok: true } } },
          requestState: second.requestState
        })
        assert.deepStrictEqual(done, { _tag: "Complete", value: "sk-abcdefgh:true", round: 2 })
      })
    ))

  it.effect("binds the interaction to the request's principal", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const first = inputRequired(yield* round(connect, { principal: "alice" }))
        assert.strictEqual((yield* store.get(idOf(first)))?.principal, "alice")
      })
    ))

  it.effect("a decline is ElicitationDeclined; a client without elicitation.url gets MissingClientCapability", () =>
    withStore(() =>
      Effect.gen(function*() {
        const first = inputRequired(yield* round(connect))
        const declined = yield* Effect.flip(
          round(connect, { inputResponses: { api_key: { action: "decline" } }, requestState: first.requestState })
        )
        assert.instanceOf(declined, ElicitationDeclined)
        const missing = yield* Effect.flip(round(connect, { clientCapabilities: { elicitation: {} } }))
        assert.instanceOf(missing, MissingClientCapability)
        assert.deepStrictEqual(missing.requiredCapabilities, { elicitation: { url: {} } })
      })
    ))

  it.effect("an expired page and a value the schema refuses are InteractionUnavailable", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const handler = Elicitation.secure({ key: "api_key", message: "Key?", schema: ApiKey, ttl: "1 minute" })
        const first = inputRequired(yield* round(handler))
        yield* TestClock.adjust("61 seconds")
        const expired = yield* Effect.flip(
          round(handler, { inputResponses: accepted, requestState: first.requestState })
        )
        assert.instanceOf(expired, InteractionUnavailable)
        assert.strictEqual(expired.reason, "expired")

        // a stored value that does not decode (a shared store written by something else than the page)
        const again = inputRequired(yield* round(connect))
        yield* submit(store, idOf(again), { api_key: "short" })
        const refused = yield* Effect.flip(
          round(connect, { inputResponses: accepted, requestState: again.requestState })
        )
        assert.instanceOf(refused, InteractionUnavailable)
        assert.strictEqual(refused.reason, "refused")
      })
    ))

  it.effect("without a way to verify the page's user the ask is refused before any page is made (UserIdentityRequired)", () =>
    Effect.gen(function*() {
      // a store of room for one interaction: a refused ask must not have taken it
      const store = yield* InteractionStore.InteractionStore.makeMemory({ maxEntries: 1, maxEntriesPerPrincipal: 1 })
      const under =
        (identity: { readonly identifiesUsers?: boolean; readonly singleUser?: boolean }) =>
        <A, E>(effect: Effect.Effect<A, E, any>) =>
          effect.pipe(
            Effect.provideService(InteractionStore.InteractionStore, store),
            Effect.provide(linksAt("https://mcp.example.com", identity))
          ) as Effect.Effect<A, E>

      // no authorization, no acknowledgement: anyone sent the link could answer
      const anonymous = yield* Effect.flip(under({ identifiesUsers: true })(round(connect)))
      assert.instanceOf(anonymous, UserIdentityRequired)
      assert.strictEqual(anonymous.reason, "unauthenticated")
      assert.include(anonymous.message, "singleUser: true")
      // an authenticated user, but a page that cannot tell who opens it: nobody could ever complete it
      const blind = yield* Effect.flip(under({ singleUser: true })(round(connect, { principal: "alice" })))
      assert.instanceOf(blind, UserIdentityRequired)
      assert.strictEqual(blind.reason, "pageCannotIdentify")
      assert.include(blind.message, "principal")

      // the ask goes on with the acknowledgement (no principal), or with a page that identifies its users (a principal)
      inputRequired(yield* under({ singleUser: true })(round(connect)))
      inputRequired(yield* under({ identifiesUsers: true })(round(connect, { principal: "alice" })))
    }).pipe(Effect.provide(SecureRandom.layerWebCrypto)))

  it.effect("a retry served by an instance with another base URL asks the same URL, and its answer matches", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const on = (base: string) => <A, E>(effect: Effect.Effect<A, E, any>) =>
          Effect.provide(effect, linksAt(base)) as Effect.Effect<A, E>
        const first = inputRequired(yield* on("http://10.0.0.1:3000")(round(connect)))
        // the page is not completed yet: the other instance asks the very same question
        const again = inputRequired(
          yield* on("http://10.0.0.2:3000")(
            round(connect, { inputResponses: accepted, requestState: first.requestState })
          )
        )
        assert.deepStrictEqual(again.inputRequests, first.inputRequests)
        yield* submit(store, idOf(first, "http://10.0.0.1:3000"), { api_key: "sk-12345678" })
        const done = yield* on("http://10.0.0.2:3000")(
          round(connect, { inputResponses: accepted, requestState: again.requestState })
        )
        assert.deepStrictEqual(done, { _tag: "Complete", value: "connected with 11 characters", round: 2 })
      })
    ))
})
