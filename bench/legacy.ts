/**
 * The 2025-11-25 load generator of `bench/index.ts`: a raw legacy client on
 * `node:http` (keep-alive) driving the same `greet` tool through our server's
 * shim, as a 2025-11-25 client does:
 *
 * - once per session: `initialize` (protocol 2025-11-25, elicitation
 *   capability; the `Mcp-Session-Id` of the answer) and
 *   `notifications/initialized`;
 * - per conversation: `tools/call greet` whose answer is an SSE stream; the
 *   server's `elicitation/create` request arrives on it, the client POSTs its
 *   JSON-RPC response (`202 Accepted`), and the stream then carries the
 *   `tools/call` result (`Hello, Alice!`, checked), and ends.
 *
 * A conversation is thus 2 POSTs, like the 2026-07-28 path's two rounds, with
 * one streamed response. Sessions are reused across conversations (one per
 * worker), so `initialize` is not part of the measured conversation.
 *
 * Gotcha: the SSE stream and the answer's POST are in flight at once, so the
 * agent needs two sockets per worker.
 */
import { Agent, request as httpRequest } from "node:http"

const VERSION = "2025-11-25"

export interface LegacyTarget {
  readonly url: URL
  readonly agent: Agent
}

export const legacyTarget = (url: string, workers: number): LegacyTarget => ({
  url: new URL(url),
  agent: new Agent({ keepAlive: true, maxSockets: workers * 2, maxFreeSockets: workers * 2 })
})

let nextId = 1

interface Opened {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  /** Called with each SSE message (parsed `data:`) or, for JSON, the body once. */
  readonly done: Promise<void>
}

/** POSTs `body`; `onMessage` gets every JSON-RPC message of the answer (the JSON body, or each SSE `data:`). */
const post = (
  t: LegacyTarget,
  body: unknown,
  session: string | undefined,
  onMessage: (message: any) => void
): Promise<Opened> =>
  new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    const req = httpRequest({
      agent: t.agent,
      host: t.url.hostname,
      port: t.url.port,
      path: t.url.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        ...(session === undefined ? {} : { "mcp-session-id": session })
      }
    }, (res) => {
      const sse = (res.headers["content-type"] ?? "").startsWith("text/event-stream")
      let buffer = ""
      const done = new Promise<void>((resolveDone, rejectDone) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          buffer += chunk
          if (!sse) return
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""))
              .join("\n")
            if (data.trim() !== "") onMessage(JSON.parse(data))
          }
        })
        res.on("end", () => {
          try {
            if (!sse && buffer.trim() !== "") onMessage(JSON.parse(buffer))
            resolveDone()
          } catch (error) {
            rejectDone(new Error(`HTTP ${res.statusCode}: ${buffer.slice(0, 300)}`, { cause: error }))
          }
        })
        res.on("error", rejectDone)
      })
      resolve({ status: res.statusCode ?? 0, headers: res.headers, done })
    })
    req.on("error", reject)
    req.end(text)
  })

/** `initialize` + `notifications/initialized`: resolves with the session id. */
export const openSession = async (t: LegacyTarget): Promise<string> => {
  const init = await post(
    t,
    {
      jsonrpc: "2.0",
      id: nextId++,
      method: "initialize",
      params: {
        protocolVersion: VERSION,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: "bench-legacy", version: "1.0.0" }
      }
    },
    undefined,
    () => {}
  )
  await init.done
  const session = init.headers["mcp-session-id"]
  if (init.status !== 200 || typeof session !== "string") throw new Error(`initialize: HTTP ${init.status}, no session`)
  const initialized = await post(t, { jsonrpc: "2.0", method: "notifications/initialized" }, session, () => {})
  await initialized.done
  if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`)
  return session
}

/** One `greet` conversation on `session`; resolves with its latency in ms. */
export const legacyConversation = async (t: LegacyTarget, session: string): Promise<number> => {
  const t0 = performance.now()
  const id = nextId++
  let answered: Promise<void> | undefined
  let result: any
  const call = await post(
    t,
    { jsonrpc: "2.0", id, method: "tools/call", params: { name: "greet", arguments: {} } },
    session,
    (message) => {
      if (message.method === "elicitation/create") {
        answered = post(
          t,
          { jsonrpc: "2.0", id: message.id, result: { action: "accept", content: { name: "Alice" } } },
          session,
          () => {}
        )
          .then(async (reply) => {
            await reply.done
            if (reply.status !== 202) throw new Error(`elicitation answer: HTTP ${reply.status}`)
          })
      } else if (message.id === id) {
        result = message
      }
    }
  )
  await call.done
  await answered
  if (result?.result?.content?.[0]?.text !== "Hello, Alice!") {
    throw new Error(
      `legacy greet: unexpected reply ${JSON.stringify(result).slice(0, 300)} (answered: ${answered !== undefined})`
    )
  }
  return performance.now() - t0
}

/** Ends a session (DELETE). */
export const closeSession = (t: LegacyTarget, session: string): Promise<void> =>
  new Promise((resolve) => {
    const req = httpRequest({
      agent: t.agent,
      host: t.url.hostname,
      port: t.url.port,
      path: t.url.pathname,
      method: "DELETE",
      headers: { "mcp-protocol-version": VERSION, "mcp-session-id": session }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve())
    })
    req.on("error", () => resolve())
    req.end()
  })
