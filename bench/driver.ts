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
}

export const target = (url: string, sockets: number): Target => ({
  url: new URL(url),
  agent: new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets })
})

let nextId = 1

/** POSTs one JSON-RPC request, resolves with the parsed JSON-RPC response (JSON or SSE body). */
const post = (t: Target, body: string): Promise<any> =>
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
        "mcp-name": "greet"
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

const call = (extra: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name: "greet", arguments: {}, ...extra, _meta: META }
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
