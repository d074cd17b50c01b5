/**
 * A local stand-in for an OpenAI-compatible endpoint (the Responses API, `POST /v1/responses`), for tests: it
 * answers a script, one step per request, each step first checking the request it receives. A request that breaks
 * its step's check, or comes after the script ended, is answered HTTP 400 and recorded in `failures`.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** One request of the Responses API, as the provider sends it (the fields the script reads). */
export interface ResponsesRequest {
  readonly model: string
  readonly input: ReadonlyArray<Record<string, any>>
  readonly tools?: ReadonlyArray<Record<string, any>>
  readonly [key: string]: unknown
}

/** One scripted exchange: `check` throws on a request the script does not expect; `output` is the model's turn. */
export interface Step {
  readonly name: string
  readonly check: (request: ResponsesRequest) => void
  readonly output: ReadonlyArray<Record<string, unknown>>
}

/** The model says `text`. */
export const message = (text: string) => [{
  type: "message",
  id: `msg_${Math.random().toString(36).slice(2)}`,
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }]
}]

/** The model calls the tool `name` with `args`. */
export const functionCall = (name: string, args: Record<string, unknown>, callId = `call_${name}`) => [{
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: JSON.stringify(args),
  status: "completed"
}]

/** The text of every message of a request's `input`, in order. */
export const texts = (request: ResponsesRequest): ReadonlyArray<string> =>
  request.input.flatMap((item) =>
    typeof item.content === "string"
      ? [item.content]
      : Array.isArray(item.content)
      ? item.content.map((part: any) => String(part.text ?? ""))
      : []
  )

export interface Stub {
  /** The base URL to configure (`OPENAI_BASE_URL`). */
  readonly baseUrl: string
  readonly requests: ReadonlyArray<ResponsesRequest>
  readonly failures: ReadonlyArray<string>
  /** How many steps were answered. */
  readonly answered: () => number
  readonly close: () => Promise<void>
}

/** Starts the stub on a free port of 127.0.0.1. */
export const start = async (script: ReadonlyArray<Step>): Promise<Stub> => {
  const requests: Array<ResponsesRequest> = []
  const failures: Array<string> = []
  let next = 0
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const fail = (reason: string) => {
        failures.push(reason)
        res.writeHead(400, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: reason, type: "invalid_request_error" } }))
      }
      if (req.method !== "POST" || req.url !== "/v1/responses") return fail(`unexpected ${req.method} ${req.url}`)
      let request: ResponsesRequest
      try {
        request = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return fail("the body is not JSON")
      }
      requests.push(request)
      const step = script[next]
      if (step === undefined) return fail(`request ${requests.length} after the script ended`)
      try {
        step.check(request)
      } catch (error) {
        return fail(`step ${step.name}: ${error instanceof Error ? error.message : String(error)}`)
      }
      next++
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({
        id: `resp_${next}`,
        object: "response",
        created_at: Math.floor(Date.now() / 1000),
        model: request.model,
        status: "completed",
        output: step.output,
        usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 }
      }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failures,
    answered: () => next,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
