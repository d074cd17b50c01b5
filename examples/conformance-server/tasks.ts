/**
 * The Tasks fixtures of the official conformance suite (SEP-2663, the ten
 * `tasks-*` server scenarios): tools with a task policy whose handlers are
 * ordinary Effects. Nothing here builds a `CreateTaskResult`, a task status
 * or an `inputRequests` entry: the runtime makes a task of a `tools/call`
 * (policy `optional` or `required`, when the request declares the
 * extension), delivers the handler's asks as the task's `input_required`
 * status, and records its result, failure or cancellation.
 *
 * Names, arguments and keys are the ones the suite (and rmcp's conformance
 * server) use.
 */
import { Elicitation, Task } from "@mrtr/core"
import { McpError } from "@mrtr/protocol/ErrorCode"
import { Tool } from "@mrtr/server"
import { Effect, Schema } from "effect"

/** `tasks-lifecycle`, `tasks-request-headers`, `tasks-dispatch-and-envelope`: never a task. */
export const greet = Tool.make("greet", {
  description: "Greets by name, synchronously (task policy: forbidden)",
  parameters: Schema.Struct({ name: Schema.String }),
  handler: ({ name }) => Effect.succeed(`Hello, ${name}!`)
})

/** A task when the request declares the extension, else a synchronous call; sleeps `seconds`. */
export const slowCompute = Tool.make("slow_compute", {
  description: "Sleeps for `seconds`, then reports (task policy: optional)",
  parameters: Schema.Struct({ seconds: Schema.Number, label: Schema.optional(Schema.String) }),
  task: "optional",
  handler: ({ label, seconds }) =>
    Effect.sleep(`${Math.max(0, seconds) * 1000} millis`).pipe(
      Effect.as(`Computed ${label ?? "result"} after ${seconds}s`)
    )
})

/** Always a task (`-32021` without the declaration); completes with a tool error after about a second. */
export const failingJob = Tool.make("failing_job", {
  description: "A task that completes with isError: true (task policy: required)",
  task: "required",
  handler: () =>
    Effect.sleep("1 second").pipe(
      Effect.as({ content: [{ type: "text" as const, text: "The job failed" }], isError: true })
    )
})

/** A task whose execution ends in a JSON-RPC error: status `failed`. */
export const protocolErrorJob = Tool.make("protocol_error_job", {
  description: "A task that fails with a JSON-RPC error (task policy: optional)",
  task: "optional",
  handler: () => Effect.fail(McpError.internalError("The job hit a protocol error"))
})

const Confirm = Schema.Struct({ confirm: Schema.Boolean })

/** A task that asks once (key `confirm`) during its run. */
export const confirmDelete = Tool.make("confirm_delete", {
  description: "Asks to confirm deleting a file, as task input (task policy: required)",
  parameters: Schema.Struct({ filename: Schema.String }),
  task: "required",
  handler: ({ filename }) =>
    Elicitation.form({ key: "confirm", message: `Delete ${filename}?`, schema: Confirm }).pipe(
      Effect.map(({ confirm }) => (confirm ? `Deleted ${filename}` : `Kept ${filename}`))
    )
})

const Answer = Schema.Struct({ name: Schema.String })

/** A task with two questions pending together (keys `input-a`, `input-b`). */
export const multiInput = Tool.make("multi_input", {
  description: "Asks two questions at once, as task input (task policy: required)",
  task: "required",
  handler: () =>
    Effect.all([
      Elicitation.form({ key: "input-a", message: "First name?", schema: Answer }),
      Elicitation.form({ key: "input-b", message: "Second name?", schema: Answer })
    ], { concurrency: "unbounded" }).pipe(Effect.map(([a, b]) => `Got ${a.name} and ${b.name}`))
})

const Name = Schema.Struct({ name: Schema.String })

/** `tasks-mrtr-composition`: an MRTR round (key `user_name`) on the `tools/call`, then the task. */
export const toolWithTask = Tool.make("test_tool_with_task", {
  description: "Asks for a name synchronously (MRTR), then continues as a task (task policy: required)",
  task: { support: "required", start: "detach" },
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "user_name", message: "What is your name?", schema: Name })
      yield* Task.detach
      return `Hello, ${name}! (async)`
    })
})

/** Every tasks fixture. */
export const tools = [
  greet,
  slowCompute,
  failingJob,
  protocolErrorJob,
  confirmDelete,
  multiInput,
  toolWithTask
] as const
