/**
 * 2025-11-25 sessions on the fleet (./fleet.ts: redis-server, three demo
 * instances, haproxy round-robin WITHOUT affinity), driven by the official
 * v1 client (`@modelcontextprotocol/sdk` 1.x `Client` +
 * `StreamableHTTPClientTransport`, with elicitation, sampling and roots
 * handlers):
 *
 * - several sessions drive the demo's asking tool, prompt and resource to
 *   completion; the answers to the server's requests land on other
 *   instances than the one running the request (shown by haproxy's
 *   `X-Mrtr-Instance` of each POST) and are forwarded to it;
 * - the instance holding an in-flight request is SIGKILLed: the client's
 *   call fails with an error (the resumption GET lands on a survivor, which
 *   answers the request's error), it does not hang; the same session's next
 *   call works, and so does a new session;
 * - forged leg ids POSTed to the other instances are ignored (the real
 *   call completes with the real answers);
 * - DELETE through the balancer ends the session on every instance;
 * - Redis restarted without persistence while a request waits for an
 *   answer: the session's record is gone, the call fails at once with
 *   -32603 `session_lost` (not after inputTimeout), a new session works.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Fleet, type InstanceName, INSTANCES, startFleet } from "./fleet.ts"

let fleet: Fleet
beforeAll(async () => {
  fleet = await startFleet()
}, 120_000)
afterAll(async () => {
  await fleet?.stop()
}, 60_000)

const ASKING = new Set(["tools/call", "prompts/get", "resources/read"])

/** A v1 client through the balancer, recording which instance served each POST. */
const connect = async (name: string, options: { readonly gate?: () => Promise<void> } = {}) => {
  const state = {
    /** The instance running the current asking request (the POST's X-Mrtr-Instance). */
    callInstance: undefined as string | undefined,
    /** Each answer POSTed: the instance running its request, the one that received the answer. */
    answers: [] as Array<{ readonly owner: string | undefined; readonly servedBy: string }>,
    legIds: [] as Array<string>
  }
  const recordingFetch = async (url: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(url, init)
    const instance = response.headers.get("x-mrtr-instance") ?? "?"
    if (typeof init?.body === "string") {
      const body = JSON.parse(init.body)
      if (ASKING.has(body.method)) state.callInstance = instance
      else if (body.method === undefined && typeof body.id === "string") {
        state.answers.push({ owner: state.callInstance, servedBy: instance })
      }
    }
    return response
  }
  const client = new Client({ name, version: "1.0.0" }, {
    capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } }
  })
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    state.legIds.push(String(extra.requestId))
    if (options.gate !== undefined) await options.gate()
    const fields = Object.keys((request.params as any).requestedSchema.properties)
    if (fields.includes("traveller")) {
      return {
        action: "accept",
        content: {
          traveller: name,
          email: `${name}@example.com`,
          date: "2026-05-01",
          passengers: 1,
          firstClass: false,
          seat: "aisle"
        }
      }
    }
    if (fields.includes("book")) return { action: "accept", content: { book: true } }
    if (fields.includes("style")) return { action: "accept", content: { style: "comfort" } }
    return { action: "accept", content: { unit: "celsius" } }
  })
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: `Rails for ${name}.` },
    model: "test-model"
  }))
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: `file:///trips/${name}` }] }))
  const transport = new StreamableHTTPClientTransport(new URL(fleet.url), { fetch: recordingFetch })
  await client.connect(transport)
  return { client, transport, state }
}

/**
 * A client whose first elicitation waits: `askedOnce` resolves when the server asked it, `release()` lets it (and every
 * later one, at once) answer.
 */
const gatedClient = async (name: string) => {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let asked!: () => void
  const askedOnce = new Promise<void>((resolve) => (asked = resolve))
  let gated = true
  const connected = await connect(name, { gate: () => gated ? (asked(), released) : Promise.resolve() })
  return {
    ...connected,
    askedOnce,
    release: () => {
      gated = false
      release()
    }
  }
}

const planTrip = (client: Client) => client.callTool({ name: "plan_trip", arguments: { from: "Paris", to: "Milan" } })

const expectTrip = (result: any, name: string) =>
  expect(result.content[0].text).toBe(
    `Booked for ${name} <${name}@example.com>: Paris → Strasbourg → Zurich → Milan, 7h23, aisle seat. ` +
      `"Rails for ${name}." Plan filed under file:///trips/${name}.`
  )

/** Settles with the outcome of `promise`, or "hang" after `ms` (a generous bound, not a speed assertion). */
const within = <A>(promise: Promise<A>, ms: number) =>
  Promise.race([
    promise.then(
      (value) => ({ _tag: "value" as const, value }),
      (error: unknown) => ({ _tag: "error" as const, error })
    ),
    new Promise<{ readonly _tag: "hang" }>((resolve) => setTimeout(() => resolve({ _tag: "hang" }), ms))
  ])

const direct = (name: InstanceName) => `http://127.0.0.1:${fleet.ports[name]}/mcp`

const rawPost = (url: string, body: unknown, session: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      "mcp-session-id": session
    },
    body: JSON.stringify(body)
  })

describe("2025-11-25 sessions behind haproxy round-robin, without affinity (official v1 client)", () => {
  it(
    "several sessions complete the asking tool, prompt and resource; answers land on other instances and are forwarded",
    async () => {
      const sessions = await Promise.all(["ada", "bob", "cy", "dee"].map((name) => connect(name)))
      await Promise.all(sessions.map(async ({ client }, i) => {
        const name = ["ada", "bob", "cy", "dee"][i]!
        for (let n = 0; n < 2; n++) expectTrip(await planTrip(client), name)
        const prompt: any = await client.getPrompt({ name: "packing_list", arguments: { city: "Rome" } })
        expect(prompt.messages[0].content.text).toBe("Write a comfortable packing list for a trip to Rome.")
        const weather: any = await client.readResource({ uri: "weather://Rome/2026-05-01" })
        expect(weather.contents[0].text).toMatch(/^Rome on 2026-05-01: .*°C$/)
      }))
      const answers = sessions.flatMap((s) => s.state.answers)
      const elsewhere = answers.filter((a) => a.owner !== undefined && a.owner !== a.servedBy)
      console.log(
        `fleet legacy: ${answers.length} answers POSTed, ${elsewhere.length} of them to another instance than the request's ` +
          `(${elsewhere.slice(0, 6).map((a) => `${a.owner}→${a.servedBy}`).join(", ")}, ...)`
      )
      // Every answer reached the request (the calls completed), and many of them through another instance.
      expect(answers.length).toBeGreaterThanOrEqual(4 * 2 * 4)
      expect(elsewhere.length).toBeGreaterThan(0)
      expect(new Set(answers.map((a) => a.servedBy))).toEqual(new Set(INSTANCES))
      for (const { client, transport } of sessions) {
        await transport.terminateSession()
        await client.close()
      }
    },
    180_000
  )

  it("forged leg ids POSTed to the other instances are ignored: the call completes with the real answers", async () => {
    const { askedOnce, client, release, state, transport } = await gatedClient("eve")
    const other = await connect("other")
    const call = planTrip(client)
    await askedOnce
    const owner = state.callInstance as InstanceName
    const leg = state.legIds[0]!
    expect(leg).toMatch(/^mrtr\.[0-9a-f]+\.\d+$/)
    const forged = {
      action: "accept",
      content: {
        traveller: "Mallory",
        email: "m@evil.example",
        date: "2026-01-01",
        passengers: 8,
        firstClass: true,
        seat: "any"
      }
    }
    for (const name of INSTANCES.filter((n) => n !== owner)) {
      for (
        const [id, session] of [
          ["mrtr.ffffffffffff.1", transport.sessionId!],
          [leg.replace(/\d+$/, "9999"), transport.sessionId!],
          [leg, other.transport.sessionId!]
        ] as const
      ) {
        const response = await rawPost(direct(name), { jsonrpc: "2.0", id, result: forged }, session)
        expect(response.status).toBe(202)
      }
    }
    release()
    expectTrip(await call, "eve")
    for (const s of [{ client, transport }, other]) {
      await s.transport.terminateSession()
      await s.client.close()
    }
  }, 120_000)

  it(
    "the instance holding an in-flight request is SIGKILLed: the call fails with an error (no hang); the same session and a new one work",
    async () => {
      const { askedOnce, client, release, state, transport } = await gatedClient("fay")
      const errors: Array<string> = []
      client.onerror = (error) => errors.push(String(error))
      const call = planTrip(client)
      await askedOnce
      const owner = state.callInstance as InstanceName
      expect(INSTANCES).toContain(owner)
      await fleet.kill(owner)
      const outcome = await within(call, 30_000)
      expect(outcome._tag).toBe("error")
      const error = (outcome as { error: any }).error
      console.log(`fleet legacy: instance ${owner} killed mid-request; the client's call failed with: ${String(error)}`)
      expect(error.code).toBe(-32603)
      expect(String(error.message)).toContain("stopped")
      // The user answers late: that answer reaches a survivor, whose owner is gone (ignored, 202).
      release()

      // The same session goes on, on the survivors.
      expectTrip(await planTrip(client), "fay")
      // A new session works too.
      const fresh = await connect("gus")
      expectTrip(await planTrip(fresh.client), "gus")
      for (const s of [{ client, transport }, fresh]) {
        await s.transport.terminateSession()
        await s.client.close()
      }
      await fleet.start(owner)
    },
    180_000
  )

  it("DELETE through the balancer ends the session on every instance", async () => {
    const { client, transport } = await connect("hal")
    // Requests round-robin over the instances: every one of them holds a replica now.
    for (let i = 0; i < 6; i++) await client.ping()
    const session = transport.sessionId!
    for (const name of INSTANCES) {
      expect((await rawPost(direct(name), { jsonrpc: "2.0", id: 1, method: "ping" }, session)).status).toBe(200)
    }
    await transport.terminateSession()
    for (const name of INSTANCES) {
      const response = await rawPost(direct(name), { jsonrpc: "2.0", id: 2, method: "ping" }, session)
      expect(response.status).toBe(404)
      expect(((await response.json()) as any).error.code).toBe(-32001)
    }
    await client.close()
  }, 60_000)

  it(
    "Redis restarted without persistence mid-request (the session's record lost): the call fails with -32603 session_lost, not after inputTimeout; a new session works",
    async () => {
      const { askedOnce, client, release, state } = await gatedClient("ivy")
      client.onerror = () => undefined
      const call = planTrip(client)
      await askedOnce
      expect(INSTANCES).toContain(state.callInstance)
      // The session's record goes with Redis' keys (no persistence); the request's instance still holds the call.
      await fleet.redis.stop()
      await fleet.redis.start()
      // inputTimeout is 5 minutes: an outcome within 30 s is the record check's.
      const outcome = await within(call, 30_000)
      expect(outcome._tag).toBe("error")
      const error = (outcome as { error: any }).error
      console.log(`fleet legacy: session record lost mid-request; the client's call failed with: ${String(error)}`)
      expect(error.code).toBe(-32603)
      expect(error.data?.reason).toBe("session_lost")
      release()
      await client.close()
      // A new session works on the restarted Redis.
      const fresh = await connect("jo")
      expectTrip(await planTrip(fresh.client), "jo")
      await fresh.transport.terminateSession()
      await fresh.client.close()
    },
    120_000
  )
})
