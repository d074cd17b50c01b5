/**
 * The fleet on real infrastructure (./fleet.ts: redis-server, three demo
 * server processes, haproxy round-robin without affinity, all on 127.0.0.1):
 *
 * - 1,000 multi-round conversations (2026-07-28) through haproxy, each round
 *   wherever haproxy sends it, while the key ring is rotated across the
 *   instances in two rolling phases and one instance is killed (SIGKILL) and
 *   restarted: 0 lost, 0 crossed (a round that hit the dying instance is
 *   retried by the client and completes elsewhere).
 * - Single use on Redis, Redis stopped mid-run then restarted: while it is
 *   down, first rounds still work and retries fail at once with -32603;
 *   once it is back, every conversation completes, none crossed, and a
 *   redeemed state is refused on every instance.
 */
import { mcpHeaders } from "@mrtr/test-support/http"
import { validateWire } from "@mrtr/test-support/wire"
import { afterAll, assert, describe, it } from "vitest"
import { type Fleet, INSTANCES, newKey, startFleet, toolsCall } from "./fleet.ts"

interface Reply {
  readonly status: number
  readonly json: any
  readonly instance: string
}

let ids = 1
/**
 * One JSON-RPC request through the balancer. A request the balancer could not
 * complete (the connection reset by a dying instance, haproxy's 502/503/504)
 * is retried, as a client does; `retries` counts them.
 */
const post = async (url: string, params: Record<string, unknown>, stats: { retries: number }): Promise<Reply> => {
  const message = toolsCall(ids++, params)
  for (let attempt = 0;; attempt++) {
    try {
      const response = await fetch(url, {
        method: "POST",
        body: JSON.stringify(message),
        headers: mcpHeaders(message)
      })
      if (response.status >= 502 && response.status <= 504 && attempt < 50) {
        await response.arrayBuffer()
        stats.retries++
        await new Promise((r) => setTimeout(r, 50))
        continue
      }
      return {
        status: response.status,
        json: await response.json(),
        instance: response.headers.get("x-mrtr-instance") ?? "?"
      }
    } catch (error) {
      if (attempt >= 50) throw error
      stats.retries++
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

/** The answers of conversation `i`, by input-request key: each carries `i`, so a crossed answer shows in the result. */
const answerFor = (key: string, i: number) => {
  switch (key) {
    case "details":
      return {
        action: "accept",
        content: {
          traveller: `T${i}`,
          email: `t${i}@example.com`,
          date: "2026-08-01",
          passengers: 1,
          firstClass: false,
          seat: "any"
        }
      }
    case "tagline":
      return { role: "assistant", content: { type: "text", text: `tag-${i}` }, model: "m" }
    case "roots":
      return { roots: [{ uri: `file:///trips/${i}` }] }
    case "confirm":
      return { action: "accept", content: { book: true } }
    default:
      throw new Error(`unexpected input request ${key}`)
  }
}

interface Outcome {
  readonly text: string
  readonly instances: ReadonlyArray<string>
  readonly states: ReadonlyArray<string>
}

/** Drives `plan_trip` to completion through the balancer, answering each round. */
const converse = async (url: string, i: number, stats: { retries: number }): Promise<Outcome> => {
  const instances: Array<string> = []
  const states: Array<string> = []
  let params: Record<string, unknown> = { name: "plan_trip", arguments: { from: "Paris", to: "Milan" } }
  for (let round = 0; round < 10; round++) {
    const reply = await post(url, params, stats)
    instances.push(reply.instance)
    validateWire("JSONRPCMessage", reply.json)
    if (reply.json.error !== undefined) throw new Error(`conversation ${i}: ${JSON.stringify(reply.json.error)}`)
    const result = reply.json.result
    if (result.resultType === "complete") return { text: result.content[0].text, instances, states }
    validateWire("InputRequiredResult", result)
    states.push(result.requestState)
    const inputResponses = Object.fromEntries(Object.keys(result.inputRequests).map((key) => [key, answerFor(key, i)]))
    params = { ...params, inputResponses, requestState: result.requestState }
  }
  throw new Error(`conversation ${i} did not complete in 10 rounds`)
}

const expectOwnAnswers = (text: string, i: number) => {
  assert.include(text, `Booked for T${i} <t${i}@example.com>`)
  assert.include(text, `"tag-${i}"`)
  assert.include(text, `file:///trips/${i}.`)
}

const fleets: Array<Fleet> = []
afterAll(async () => {
  for (const fleet of fleets) await fleet.stop()
}, 60_000)

describe("the fleet behind haproxy", () => {
  it(
    "1,000 conversations with a rolling key rotation and an instance killed and restarted mid-run: 0 lost, 0 crossed",
    async () => {
      const fleet = await startFleet()
      fleets.push(fleet)
      const k1 = fleet.envOf("a").MRTR_REQUEST_STATE_KEYS!
      const k2 = newKey("k2")
      const total = Number(process.env.FLEET_CONVERSATIONS ?? 1_000)
      const step = Math.max(1, Math.floor(total / 20))
      const stats = { retries: 0 }
      let completed = 0
      const operations: Array<string> = []
      // The operations wait for progress, but never for the conversations that wait for them (no deadlock).
      const waitFor = async (n: number) => {
        while (completed < Math.min(n, total - 2 * step)) await new Promise((r) => setTimeout(r, 20))
      }
      // Rotation in two rolling phases (never a moment where one instance seals with a key another cannot open):
      // first every instance learns k2 (k1 still current), then every instance seals with k2 (k1 still accepted).
      const ops = (async () => {
        await waitFor(2 * step)
        for (const name of INSTANCES) {
          if (process.env.FLEET_PROGRESS !== undefined) console.log(`${new Date().toISOString()} restarting ${name}`)
          await fleet.restart(name, { MRTR_REQUEST_STATE_KEYS: `${k1},${k2}` })
          operations.push(`${name}: k1,k2 at ${completed}`)
          if (process.env.FLEET_PROGRESS !== undefined) console.log(`${new Date().toISOString()} ${operations.at(-1)}`)
        }
        await waitFor(completed + step)
        await fleet.kill("b")
        operations.push(`b killed at ${completed}`)
        await waitFor(completed + step)
        await fleet.start("b")
        operations.push(`b restarted at ${completed}`)
        for (const name of INSTANCES) {
          await fleet.restart(name, { MRTR_REQUEST_STATE_KEYS: `${k2},${k1}` })
          operations.push(`${name}: k2,k1 at ${completed}`)
        }
      })()
      let opsDone = false
      void ops.finally(() => (opsDone = true))
      const outcomes: Array<Outcome | undefined> = new Array(total)
      let next = 0
      const worker = async () => {
        for (;;) {
          const i = next++
          if (i >= total) return
          // The last conversations wait for the operations: they happen mid-run, not after it.
          if (i >= total - 2 * step) { while (!opsDone) await new Promise((r) => setTimeout(r, 20)) }
          outcomes[i] = await converse(fleet.url, i, stats)
          completed++
          // While instances roll, conversations go on at a slower pace, so that most of the rolling happens under traffic.
          if (!opsDone) await new Promise((r) => setTimeout(r, 1_000))
          if (process.env.FLEET_PROGRESS !== undefined && completed % step === 0) {
            console.log(
              `${new Date().toISOString()} ${completed} done, ${stats.retries} retries; ${operations.join("; ")}`
            )
          }
        }
      }
      await Promise.all([...Array.from({ length: 12 }, worker), ops])
      assert.isTrue(opsDone)
      for (let i = 0; i < total; i++) expectOwnAnswers(outcomes[i]!.text, i)
      const all = outcomes as Array<Outcome>
      // Every conversation completed (0 lost), each with its own answers (0 crossed), its rounds spread over the fleet.
      assert.strictEqual(all.length, total)
      assert.deepStrictEqual(new Set(all.flatMap((o) => o.instances)), new Set(INSTANCES))
      assert.isAbove(all.filter((o) => new Set(o.instances).size > 1).length, total / 2)
      // Sealed with k1 before the rotation, with k2 after it.
      assert.isTrue(all[0]!.states[0]!.startsWith("v2.k1."))
      assert.isTrue(all[total - 1]!.states.every((s) => s.startsWith("v2.k2.")))
      console.log(
        `fleet: ${total} conversations, ${stats.retries} requests retried by the client; ${operations.join("; ")}`
      )
    },
    600_000
  )

  it(
    "single use on Redis: Redis stopped mid-run degrades as documented, then full service, nothing crossed",
    async () => {
      const fleet = await startFleet({ env: { MRTR_SINGLE_USE: "true" } })
      fleets.push(fleet)
      const stats = { retries: 0 }
      for (let i = 0; i < 30; i++) expectOwnAnswers((await converse(fleet.url, i, stats)).text, i)
      // A redeemed state is refused on every instance, directly as through the balancer.
      const first = await post(fleet.url, { name: "plan_trip", arguments: { from: "Paris", to: "Milan" } }, stats)
      const params = {
        name: "plan_trip",
        arguments: { from: "Paris", to: "Milan" },
        requestState: first.json.result.requestState,
        inputResponses: { details: answerFor("details", 7) }
      }
      assert.strictEqual((await post(fleet.url, params, stats)).json.result.resultType, "input_required")
      for (const name of INSTANCES) {
        const direct = await post(`http://127.0.0.1:${fleet.ports[name]}/mcp`, params, stats)
        assert.deepStrictEqual(direct.json.error, { code: -32602, message: "Invalid requestState" })
      }

      await fleet.redis.stop()
      // Down: a first round works (nothing to redeem); its retry fails at once with -32603, on any instance.
      const down = await post(fleet.url, { name: "plan_trip", arguments: { from: "Paris", to: "Milan" } }, stats)
      assert.strictEqual(down.json.result.resultType, "input_required")
      const retryParams = {
        name: "plan_trip",
        arguments: { from: "Paris", to: "Milan" },
        requestState: down.json.result.requestState,
        inputResponses: { details: answerFor("details", 99) }
      }
      for (let n = 0; n < 3; n++) {
        const startedAt = Date.now()
        const refused = await post(fleet.url, retryParams, stats)
        assert.isBelow(Date.now() - startedAt, 3_000)
        validateWire("JSONRPCErrorResponse", refused.json)
        assert.strictEqual(refused.json.error.code, -32603)
        assert.include(refused.json.error.message, "replay guard is unavailable")
      }

      await fleet.redis.start()
      // Back: the instances reconnect by themselves (backoff up to 2 s); the refused state now redeems, once.
      let resumed = await post(fleet.url, retryParams, stats)
      for (let n = 0; n < 100 && resumed.json.error !== undefined; n++) {
        await new Promise((r) => setTimeout(r, 100))
        resumed = await post(fleet.url, retryParams, stats)
      }
      assert.strictEqual(resumed.json.result.resultType, "input_required")
      // The replay is refused everywhere: as replayed (-32602) by an instance that has reconnected, as "retry later"
      // (-32603) by one whose client is still reconnecting (round-robin may send it there); never redeemed twice.
      let replayed = await post(fleet.url, retryParams, stats)
      for (let n = 0; n < 100 && replayed.json.error?.code === -32603; n++) {
        await new Promise((r) => setTimeout(r, 100))
        replayed = await post(fleet.url, retryParams, stats)
      }
      assert.deepStrictEqual(replayed.json.error, { code: -32602, message: "Invalid requestState" })
      // Each instance is back on its own once its client has reconnected.
      for (const name of INSTANCES) {
        const direct = `http://127.0.0.1:${fleet.ports[name]}/mcp`
        for (let n = 0;; n++) {
          const opened = await post(direct, { name: "plan_trip", arguments: { from: "Paris", to: "Milan" } }, stats)
          const retried = await post(direct, { ...retryParams, requestState: opened.json.result.requestState }, stats)
          if (retried.json.error === undefined) break
          assert.strictEqual(retried.json.error.code, -32603)
          if (n > 100) throw new Error(`instance ${name} did not reconnect to Redis`)
          await new Promise((r) => setTimeout(r, 100))
        }
      }
      // Full service on every instance (three conversations in a row reach all of them at least once).
      for (let i = 100; i < 130; i++) expectOwnAnswers((await converse(fleet.url, i, stats)).text, i)
    },
    300_000
  )
})
