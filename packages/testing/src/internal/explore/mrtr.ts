/**
 * One explored conversation on 2026-07-28: the explorer is the client. It
 * sends the request to the server's dispatcher (`McpHandler`, in memory,
 * JSON round trip), answers each round's `inputRequests` through a `User`,
 * and retries with `inputResponses` (a key left out for no answer) and the
 * echoed `requestState`. The checks inside the server are the observer's
 * (`observe.ts`); here, the wire and the ending.
 */
import type { InputRequest } from "@mrtr/protocol/Schema"
import type { Transport } from "@mrtr/server"
import { Effect, Stream } from "effect"
import {
  type Asked,
  checkWire,
  type Ending,
  inputDef,
  type Json,
  judge,
  methodOf,
  type Options,
  paramsOf,
  resultDef,
  type Target,
  type Trace,
  type User,
  wireCopy
} from "./model.ts"
import * as Observe from "./observe.ts"

/** Runs one conversation. */
export const run = Effect.fnUntraced(function*(
  handler: Transport.Handler,
  target: Target,
  args: unknown,
  user: User,
  options: Options
) {
  const method = methodOf(target)
  const observer = Observe.make(options)
  const { violations } = observer
  const asked: Array<Asked> = []
  const askedAgain: Array<string> = []
  const wire = checkWire(violations, options.validate, "2026-07-28")
  let id = 0
  const send = Effect.fnUntraced(function*(retry: Json) {
    const message = {
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        ...paramsOf(target, args),
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": user.capabilities
        },
        ...retry
      }
    }
    const reply = yield* observer.provide(handler.handle({ message: wireCopy(message) }))
    let response: Json | undefined
    if (reply._tag === "Response") response = reply.message as Json
    else if (reply._tag === "Stream") {
      const messages = yield* Stream.runCollect(reply.messages)
      for (const m of messages as Iterable<Json>) {
        if ("id" in m && m.id === message.id && !("method" in m)) response = m
        else wire("JSONRPCNotification", m)
      }
    }
    return response === undefined ? undefined : wireCopy(response)
  })

  let retry: Json = {}
  let round = 0
  let ending: Ending = { _tag: "Unfinished" }
  const previous = new Set<string>()
  while (violations.length === 0) {
    round++
    if (round > options.maxRounds + 1) {
      violations.push({
        property: "rounds",
        message: `the conversation did not end within ${options.maxRounds} rounds`
      })
      break
    }
    const response = yield* send(retry)
    if (response === undefined) {
      violations.push({ property: "wire", message: `round ${round}: the server sent no response` })
      break
    }
    if (response.error !== undefined) {
      wire("JSONRPCErrorResponse", response)
      ending = { _tag: "Error", error: response.error }
      break
    }
    wire("JSONRPCResultResponse", response)
    const result: Json = response.result ?? {}
    if (result.resultType !== "input_required") {
      wire(resultDef[method]!, result)
      ending = { _tag: "Result", result }
      break
    }
    wire("InputRequiredResult", result)
    if (violations.length > 0) break
    const requests: Record<string, InputRequest> = result.inputRequests ?? {}
    const responses: Record<string, unknown> = {}
    for (const [key, request] of Object.entries(requests)) {
      wire(inputDef[request.method] ?? "JSONRPCRequest", { jsonrpc: "2.0", id: 0, ...request })
      if (previous.has(key)) askedAgain.push(key)
      const given = yield* user.answer(key, request, round)
      asked.push({ round, key, request, choice: given.choice, answer: given.answer })
      previous.add(key)
      if (given.choice !== "omit") responses[key] = given.answer
    }
    retry = {
      inputResponses: responses,
      ...(result.requestState === undefined ? {} : { requestState: result.requestState })
    }
  }
  observer.finish()
  if (violations.length === 0) { for (const v of judge(ending, options, observer)) violations.push(v) }
  return {
    mode: "2026-07-28" as const,
    era: "2026-07-28" as const,
    arguments: args,
    asked,
    askedAgain,
    ending,
    violations
  } satisfies Trace
})
