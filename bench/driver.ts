/**
 * The load generator of `bench/index.ts`: a minimal raw MRTR driver on
 * `node:http` with a keep-alive agent (one socket per concurrent
 * conversation), so the same, cheap client drives all three servers.
 *
 * One conversation = round 1 (`tools/call greet`, expects `input_required`
 * with the key `name`), then round 2 (`inputResponses.name` + the echoed
 * `requestState`, new id, expects complete `Hello, Alice!`). Every response is
 * checked; a wrong one throws.
 */
import { Agent, request as httpRequest } from "node:http"

const PROTOCOL_VERSION = "2026-07-28"
const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" }
}
const ANSWER = { name: { action: "accept", content: { name: "Alice" } } }

export interface Target {
  readonly url: URL
  readonly agent: Agent
  /** Extra request headers (e.g. `authorization`). */
  readonly headers: Readonly<Record<string, string>>
}

export const target = (url: string, sockets: number, headers: Readonly<Record<string, string>> = {}): Target => ({
  url: new URL(url),
  agent: new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets }),
  headers
})

let nextId = 1

/** POSTs one JSON-RPC `tools/call` of `tool`, resolves with the parsed JSON-RPC response (JSON or SSE body). */
export const post = (t: Target, body: string, tool = "greet"): Promise<any> =>
  new Promise((resolve, reject) => {
    const req = httpRequest({
      agent: t.agent,
      host: t.url.hostname,
      port: t.url.port,
      path: t.url.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-method": "tools/call",
        "mcp-name": tool,
        ...t.headers
      }
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        try {
          if ((res.headers["content-type"] ?? "").startsWith("text/event-stream")) {
            const data = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6))
            resolve(JSON.parse(data[data.length - 1]!))
          } else {
            resolve(JSON.parse(text))
          }
        } catch (error) {
          reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`, { cause: error }))
        }
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(body)
  })

const call = (extra: Record<string, unknown>, tool = "greet", args: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name: tool, arguments: args, ...extra, _meta: META }
  })

/** Round 1 only: resolves with the `requestState` (the conversation is left suspended). */
export const roundOne = async (t: Target): Promise<string | undefined> => {
  const reply = await post(t, call({}))
  const result = reply.result
  if (result?.resultType !== "input_required" || result.inputRequests?.name?.method !== "elicitation/create") {
    throw new Error(`round 1: unexpected reply ${JSON.stringify(reply).slice(0, 300)}`)
  }
  return result.requestState
}

/** Both rounds; resolves with the conversation's latency in ms. */
export const conversation = async (t: Target): Promise<number> => {
  const t0 = performance.now()
  const requestState = await roundOne(t)
  const reply = await post(t, call({ inputResponses: ANSWER, ...(requestState === undefined ? {} : { requestState }) }))
  const result = reply.result
  if (result?.resultType !== "complete" || result.content?.[0]?.text !== "Hello, Alice!") {
    throw new Error(`round 2: unexpected reply ${JSON.stringify(reply).slice(0, 300)}`)
  }
  return performance.now() - t0
}

/** The answer `ask_n`'s driver gives to question `i` (the elicitation result as sent in `inputResponses`). */
export const nAnswer = (i: number, pad = 0) => ({
  action: "accept",
  content: { answer: `answer-${String(i).padStart(2, "0")}${"x".repeat(pad)}` }
})

/** The result of one `ask_n` conversation. */
export interface NRounds {
  readonly ms: number
  /** Characters (= bytes, base64url) of the last `requestState` the server handed out. */
  readonly lastStateBytes: number
}

/**
 * One `ask_n` conversation of `n` questions (n + 1 requests): answers each
 * `q<i>` with {@link nAnswer} (its text padded by `pad` characters), echoes
 * the state, checks the final text.
 */
export const nRounds = async (t: Target, n: number, pad = 0): Promise<NRounds> => {
  const t0 = performance.now()
  let extra: Record<string, unknown> = {}
  let lastStateBytes = 0
  for (let i = 0;; i++) {
    const reply = await post(t, call(extra, "ask_n", { n }), "ask_n")
    const result = reply.result
    if (result?.resultType === "complete") {
      const expected = Array.from({ length: n }, (_, k) => nAnswer(k, pad).content.answer).join(" ")
      if (i !== n || result.content?.[0]?.text !== expected) {
        throw new Error(`ask_n ${n}: unexpected final reply after ${i} rounds ${JSON.stringify(reply).slice(0, 300)}`)
      }
      return { ms: performance.now() - t0, lastStateBytes }
    }
    if (result?.resultType !== "input_required" || result.inputRequests?.[`q${i}`]?.method !== "elicitation/create") {
      throw new Error(`ask_n ${n}, round ${i + 1}: unexpected reply ${JSON.stringify(reply).slice(0, 300)}`)
    }
    lastStateBytes = typeof result.requestState === "string" ? Buffer.byteLength(result.requestState) : 0
    extra = {
      inputResponses: { [`q${i}`]: nAnswer(i, pad) },
      ...(result.requestState === undefined ? {} : { requestState: result.requestState })
    }
  }
}

/**
 * Runs tasks with `concurrency` workers until `total` tasks have started or,
 * when `deadlineMs` is given, until that much wall time has passed (tasks
 * already started finish). Resolves with their results and the wall time in
 * ms. Stops by itself.
 */
export const runPool = async <A>(
  total: number,
  concurrency: number,
  task: () => Promise<A>,
  deadlineMs = Infinity
): Promise<{ results: Array<A>; wallMs: number }> => {
  const results: Array<A> = []
  let started = 0
  const t0 = performance.now()
  const worker = async () => {
    while (started < total && performance.now() - t0 < deadlineMs) {
      started++
      results.push(await task())
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker))
  return { results, wallMs: performance.now() - t0 }
}

/** The body of round 1 and of round 2 (given the state), as the driver sends them: for the in-process client comparison. */
export const roundBodies = {
  one: () => call({}),
  two: (requestState: string | undefined) =>
    call({ inputResponses: ANSWER, ...(requestState === undefined ? {} : { requestState }) })
}
