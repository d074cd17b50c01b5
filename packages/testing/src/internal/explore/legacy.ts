/**
 * One explored conversation on 2025-11-25: the explorer is a legacy client
 * on a stdio-like connection. It opens a session (`initialize`,
 * `notifications/initialized`), sends the request, and answers each
 * `elicitation/create`, `sampling/createMessage` and `roots/list` the
 * server's shim sends on the request's stream with a JSON-RPC response,
 * until the request's own response. Every request gets an answer on this
 * era: no answer (`"omit"`) is an empty result, an answer of another kind or
 * content the form refuses goes as is, and the server must ask again.
 *
 * Keys: this wire carries none, so asks are keyed as `McpClient` keys them
 * (`elicitation-1`, `sampling-1`, `roots-1`, ... counted over the call), and
 * a scripted user replays them by those keys. The checks inside the server
 * (determinism, steps, uncaught declines) are the observer's (`observe.ts`).
 */
import type { InputRequest } from "@mrtr/protocol/Schema"
import type { Transport } from "@mrtr/server"
import { Effect, Queue, Stream } from "effect"
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

const KIND: Readonly<Record<string, "elicitation" | "sampling" | "roots">> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
}

/** A question as asked again: a refusal's presentation left out. */
const questionOf = (request: InputRequest): string => {
  const params = { ...(request.params as Json) }
  if (request.method === "elicitation/create" && typeof params.message === "string") {
    const message: string = params.message
    const refused = message.startsWith("Your answer was not accepted: ") ? message.indexOf("\n\n") : -1
    if (refused !== -1) params.message = message.slice(refused + 2)
  }
  return JSON.stringify({ method: request.method, params })
}

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
  const wire = checkWire(violations, options.validate, "2025-11-25")
  // Messages outside any request (none expected of a call), and what ends the session.
  const outside = yield* Queue.unbounded<unknown>()
  const finalizers: Array<Effect.Effect<void>> = []
  const connection: Transport.Connection = {
    send: (message) => Effect.asVoid(Queue.offer(outside, wireCopy(message))),
    onClose: (finalizer) => void finalizers.push(finalizer)
  }
  const deliver = (message: unknown) => observer.provide(handler.handle({ message: wireCopy(message), connection }))
  const close = Effect.suspend(() => Effect.forEach(finalizers.splice(0), (f) => Effect.ignore(f), { discard: true }))

  const conversation = Effect.gen(function*() {
    const init = yield* deliver({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: user.capabilities,
        clientInfo: { name: "mrtr-explore", version: "0.1.0" }
      }
    })
    const initialized = init._tag === "Response" ? wireCopy(init.message) as Json : undefined
    if (initialized?.result === undefined) {
      violations.push({ property: "wire", message: `initialize failed: ${JSON.stringify(initialized)}` })
      return { _tag: "Unfinished" } as Ending
    }
    wire("InitializeResult", initialized.result)
    yield* deliver({ jsonrpc: "2.0", method: "notifications/initialized" })

    const counters = { elicitation: 0, sampling: 0, roots: 0 }
    const questions = new Map<string, string>()
    let response: Json | undefined
    let legs = 0
    const reply = yield* deliver({ jsonrpc: "2.0", id: 1, method, params: paramsOf(target, args) })
    const messages: Stream.Stream<unknown> = reply._tag === "Response"
      ? Stream.succeed(reply.message)
      : reply._tag === "Stream"
      ? reply.messages
      : Stream.empty
    yield* Stream.runForEachWhile(messages, (raw) =>
      Effect.gen(function*() {
        const m = wireCopy(raw) as Json
        if (m.method !== undefined && m.id !== undefined) {
          wire("JSONRPCRequest", m)
          if (inputDef[m.method] !== undefined) wire(inputDef[m.method]!, m)
          const kind = KIND[m.method]
          if (violations.length > 0) return false
          if (kind === undefined) {
            yield* deliver({
              jsonrpc: "2.0",
              id: m.id,
              error: { code: -32601, message: `Method not found: ${m.method}` }
            })
            return true
          }
          if (++legs > (options.maxRounds + 1) * 8 || observer.round() > options.maxRounds + 1) {
            violations.push({
              property: "rounds",
              message: `the conversation did not end within ${options.maxRounds} rounds`
            })
            return false
          }
          const key = `${kind}-${++counters[kind]}`
          const request = { method: m.method, params: m.params ?? {} } as InputRequest
          const question = questionOf(request)
          const before = questions.get(question)
          if (before !== undefined) askedAgain.push(before)
          else questions.set(question, key)
          const round = Math.max(observer.round(), 1)
          const given = yield* user.answer(key, request, round)
          asked.push({ round, key, request, choice: given.choice, answer: given.answer })
          // Every request of this era is answered: no answer is an empty result.
          yield* deliver({ jsonrpc: "2.0", id: m.id, result: given.choice === "omit" ? {} : given.answer })
          return true
        }
        if (m.method !== undefined) {
          wire("JSONRPCNotification", m)
          return true
        }
        if (m.id === 1) {
          response = m
          return false
        }
        return true
      }))
    if (violations.length > 0) return { _tag: "Unfinished" } as Ending
    if (response === undefined) {
      violations.push({ property: "wire", message: "the server sent no response" })
      return { _tag: "Unfinished" } as Ending
    }
    if (response.error !== undefined) {
      wire("JSONRPCErrorResponse", response)
      return { _tag: "Error", error: response.error } as Ending
    }
    wire("JSONRPCResultResponse", response)
    wire(resultDef[method]!, response.result)
    return { _tag: "Result", result: response.result ?? {} } as Ending
  })

  const ending = yield* Effect.ensuring(conversation, close)
  observer.finish()
  if (violations.length === 0) { for (const v of judge(ending, options, observer)) violations.push(v) }
  return {
    mode: "2025-11-25" as const,
    era: "2025-11-25" as const,
    arguments: args,
    asked,
    askedAgain,
    ending,
    violations
  } satisfies Trace
})
