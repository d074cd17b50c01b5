/**
 * One explored conversation as a task (SEP-2663): the explorer is a
 * 2026-07-28 client that declares the Tasks extension. It calls the tool
 * (a `CreateTaskResult`; a tool that starts with `Task.detach` may ask in
 * MRTR rounds first, and a tool that is not task-eligible just answers),
 * polls `tasks/get`, and answers an
 * `input_required` task's `inputRequests` with `tasks/update` (a key left
 * out for no answer: the task keeps waiting for it, and it is answered
 * again), until the task completes or fails. Keys are the task's (a key
 * asked again is published as `key#2`, ...).
 *
 * The checks inside the server (determinism, steps, uncaught declines) are
 * the observer's (`observe.ts`): a task's rounds run in fibers forked from
 * the explorer's requests, so they see it.
 */
import type { InputRequest } from "@mrtr/protocol/Schema"
import { TASKS_EXTENSION } from "@mrtr/protocol/Tasks"
import type { Transport } from "@mrtr/server"
import { Effect, Stream } from "effect"
import {
  type Asked,
  checkWire,
  type Ending,
  inputDef,
  type Json,
  judge,
  type Options,
  paramsOf,
  type Target,
  type Trace,
  type User,
  wireCopy
} from "./model.ts"
import * as Observe from "./observe.ts"

/** How long a task may stay `working` before the exploration gives up on it, in ms. */
const STUCK_MS = 30_000

/** A pause between polls, on the real clock whatever the test's. */
const pause = Effect.callback<void>((resume) => {
  const timer = setTimeout(() => resume(Effect.void), 1)
  return Effect.sync(() => clearTimeout(timer))
})

/** Runs one conversation. */
export const run = Effect.fnUntraced(function*(
  handler: Transport.Handler,
  target: Target,
  args: unknown,
  user: User,
  options: Options
) {
  const observer = Observe.make(options)
  const { violations } = observer
  const asked: Array<Asked> = []
  const askedAgain: Array<string> = []
  const wire = checkWire(violations, options.validate, "2026-07-28")
  const wireTasks = checkWire(violations, options.validate, "tasks")
  const capabilities = {
    ...user.capabilities,
    extensions: { ...user.capabilities.extensions, [TASKS_EXTENSION]: {} }
  }
  let id = 0
  /** One request; its response (`undefined`: none). */
  const send = Effect.fnUntraced(function*(method: string, params: Json) {
    const message = {
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": capabilities
        }
      }
    }
    const reply = yield* observer.provide(handler.handle({ message: wireCopy(message) }))
    let response: Json | undefined
    if (reply._tag === "Response") response = reply.message as Json
    else if (reply._tag === "Stream") {
      for (const m of (yield* Stream.runCollect(reply.messages)) as Iterable<Json>) {
        if ("id" in m && m.id === message.id && !("method" in m)) response = m
        else wire("JSONRPCNotification", m)
      }
    }
    if (response === undefined) return undefined
    response = wireCopy(response)
    wire(response.error === undefined ? "JSONRPCResultResponse" : "JSONRPCErrorResponse", response)
    return response
  })

  const seen = new Set<string>()
  const conversation = Effect.gen(function*() {
    if (!("tool" in target)) {
      violations.push({ property: "defect", message: "only a tool runs as a task" })
      return { _tag: "Unfinished" } as Ending
    }
    // A tool that starts with `Task.detach` asks in MRTR rounds first: answered as on 2026-07-28, until the task.
    let retry: Json = {}
    let created: Json | undefined
    for (let round = 1;; round++) {
      created = yield* send("tools/call", { ...paramsOf(target, args), ...retry })
      if (created === undefined) {
        violations.push({ property: "wire", message: "the server sent no response to tools/call" })
        return { _tag: "Unfinished" } as Ending
      }
      if (created.error !== undefined) return { _tag: "Error", error: created.error } as Ending
      const result: Json = created.result ?? {}
      if (result.resultType === "task") break
      if (result.resultType !== "input_required") {
        wire("CallToolResult", result)
        return { _tag: "Result", result } as Ending
      }
      wire("InputRequiredResult", result)
      if (violations.length > 0) return { _tag: "Unfinished" } as Ending
      if (round > options.maxRounds) {
        violations.push({
          property: "rounds",
          message: `the conversation did not end within ${options.maxRounds} rounds`
        })
        return { _tag: "Unfinished" } as Ending
      }
      const responses: Record<string, unknown> = {}
      for (const [key, request] of Object.entries(result.inputRequests ?? {}) as Array<[string, InputRequest]>) {
        wire(inputDef[request.method] ?? "JSONRPCRequest", { jsonrpc: "2.0", id: 0, ...request })
        if (seen.has(key)) askedAgain.push(key)
        seen.add(key)
        const given = yield* user.answer(key, request, round)
        asked.push({ round, key, request, choice: given.choice, answer: given.answer })
        if (given.choice !== "omit") responses[key] = given.answer
      }
      retry = {
        inputResponses: responses,
        ...(result.requestState === undefined ? {} : { requestState: result.requestState })
      }
    }
    wireTasks("CreateTaskResult", created.result)
    const taskId: string = created.result.taskId
    let answered = 0
    let workingSince: number | undefined
    while (violations.length === 0) {
      const polled = yield* send("tasks/get", { taskId })
      if (polled?.result === undefined) {
        violations.push({ property: "wire", message: `tasks/get failed: ${JSON.stringify(polled)}` })
        break
      }
      const task: Json = polled.result
      wireTasks("GetTaskResult", task)
      switch (task.status) {
        case "completed":
          wire("CallToolResult", task.result)
          return { _tag: "Result", result: task.result ?? {} } as Ending
        case "failed":
          return { _tag: "Error", error: task.error } as Ending
        case "cancelled":
          violations.push({ property: "defect", message: `the task was cancelled: ${JSON.stringify(task)}` })
          return { _tag: "Unfinished" } as Ending
        case "input_required": {
          workingSince = undefined
          if (violations.length > 0) break
          if (++answered > options.maxRounds + 1) {
            violations.push({
              property: "rounds",
              message: `the conversation did not end within ${options.maxRounds} rounds`
            })
            break
          }
          const round = Math.max(observer.round(), 1)
          const responses: Record<string, unknown> = {}
          for (const [key, request] of Object.entries(task.inputRequests ?? {}) as Array<[string, InputRequest]>) {
            wireTasks(inputDef[request.method] ?? "JSONRPCRequest", { jsonrpc: "2.0", id: 0, ...request })
            const base = key.replace(/#\d+$/, "")
            if (seen.has(base)) askedAgain.push(base)
            seen.add(base)
            const given = yield* user.answer(key, request, round)
            asked.push({ round, key, request, choice: given.choice, answer: given.answer })
            if (given.choice !== "omit") responses[key] = given.answer
          }
          const updated = yield* send("tasks/update", { taskId, inputResponses: responses })
          if (updated?.result !== undefined) wireTasks("UpdateTaskResult", updated.result)
          break
        }
        default: {
          // Not `Date.now()`: a replay moves `Date` (observe.ts) while this polls.
          const now = performance.now()
          workingSince ??= now
          if (now - workingSince > STUCK_MS) {
            violations.push({ property: "rounds", message: `the task stayed ${task.status} for ${STUCK_MS} ms` })
            break
          }
          yield* pause
        }
      }
    }
    yield* send("tasks/cancel", { taskId })
    return { _tag: "Unfinished" } as Ending
  })

  const ending = yield* conversation
  observer.finish()
  if (violations.length === 0) { for (const v of judge(ending, options, observer)) violations.push(v) }
  return {
    mode: "task" as const,
    era: "2026-07-28" as const,
    arguments: args,
    asked,
    askedAgain,
    ending,
    violations
  } satisfies Trace
})
