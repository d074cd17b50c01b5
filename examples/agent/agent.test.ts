/**
 * The terminal agent, unattended: the model chooses the demo's `plan_trip`, the person's answers to its two forms are
 * typed at a scripted terminal, the tool's sampling request goes to the same model, and the model answers with the
 * tool's result. Three ways: an in-process `LanguageModel` (unit), the real `@effect/ai-openai` provider over HTTP
 * against a local OpenAI-compatible stub that checks each request, and `main.ts` as its own process with its stdin
 * typed into (as a person runs it).
 */
import { assert, describe, it } from "@effect/vitest"
import { sourceNodeArgs } from "@mrtr/test-support/node"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Prompt } from "effect/ai"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Agent from "./agent.ts"
import { BOOKED, DIALOG, ROOTS, script, scriptedTerminal, stubConfig } from "./client.ts"
import * as Model from "./model.ts"
import * as Stub from "./stub.ts"

const lastToolResult = (prompt: Prompt.Prompt): string | undefined => {
  for (const message of [...prompt.content].reverse()) {
    if (message.role !== "tool") continue
    for (const part of message.content) {
      if (part.type !== "tool-result") continue
      const result = part.result as { readonly content?: ReadonlyArray<{ readonly text?: string }> }
      return result.content?.map((block) => block.text).join("\n") ?? JSON.stringify(result)
    }
  }
  return undefined
}

const textOf = (prompt: Prompt.Prompt): string =>
  prompt.content.flatMap((message) =>
    typeof message.content === "string"
      ? [message.content]
      : message.content.map((part) => part.type === "text" ? part.text : "")
  ).join("\n")

/** A model in this process: calls plan_trip, writes the tagline the tool samples, then reports the tool's result. */
const inProcessModel = (calls: Array<string>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          const finish = (reason: "stop" | "tool-calls") =>
            ({ type: "finish", reason, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } }) as const
          const text = textOf(options.prompt)
          if (text.includes("tagline")) {
            calls.push("sampling")
            return [{ type: "text", text: "Rails, lakes and espresso." }, finish("stop")]
          }
          const result = lastToolResult(options.prompt)
          if (result === undefined) {
            calls.push(`tools: ${options.tools.map((tool) => tool.name).sort().join(", ")}`)
            return [
              { type: "tool-call", id: "call_1", name: "plan_trip", params: { from: "Paris", to: "Milan" } },
              finish("tool-calls")
            ]
          }
          calls.push("answer")
          return [{ type: "text", text: `Done: ${result}` }, finish("stop")]
        }),
      streamText: () => Stream.empty
    })
  )

describe("the terminal agent", () => {
  it.effect("with an in-process model: tool chosen, forms typed, sampling by the same model", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const terminal = scriptedTerminal(DIALOG)
      yield* Agent.session.pipe(
        Effect.provide(Agent.client(Agent.demoInProcess, "in-process", ROOTS)),
        Effect.provide(inProcessModel(calls)),
        Effect.provide(terminal.layer)
      )
      assert.deepStrictEqual(calls, [
        "tools: book_tickets, check_timetables, link_rail_account, plan_trip",
        "sampling",
        "answer"
      ])
      assert.strictEqual(terminal.answered(), DIALOG.length)
      const shown = terminal.shown.join("")
      assert.include(shown, `[plan_trip] ${BOOKED}`)
      assert.include(shown, `agent> Done: ${BOOKED}`)
    }))

  it.live(
    "on @effect/ai-openai over HTTP, against a local OpenAI-compatible stub that checks each request",
    () =>
      Effect.gen(function*() {
        const stub = yield* Effect.promise(() => Stub.start(script))
        yield* Effect.addFinalizer(() => Effect.promise(() => stub.close()))
        const terminal = scriptedTerminal(DIALOG)
        yield* Agent.session.pipe(
          Effect.provide(Agent.client(Agent.demoInProcess, "stub-model", ROOTS)),
          Effect.provide(Model.layer),
          Effect.provide(stubConfig(stub.baseUrl)),
          Effect.provide(terminal.layer)
        )
        assert.deepStrictEqual(stub.failures, [])
        assert.strictEqual(stub.answered(), script.length)
        assert.include(terminal.shown.join(""), "agent> Your trip is booked.")
      }),
    { timeout: 60_000 }
  )

  it("runs as its own process, its stdin typed into as a person would", async () => {
    const stub = await Stub.start(script)
    try {
      const main = fileURLToPath(new URL("./main.ts", import.meta.url))
      const register = fileURLToPath(new URL("./compat/register.mjs", import.meta.url))
      const child = spawn(process.execPath, [...sourceNodeArgs, "--import", register, main], {
        env: { ...process.env, OPENAI_BASE_URL: stub.baseUrl, OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "stub-model" },
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
        stdio: ["pipe", "pipe", "pipe"]
      })
      let output = ""
      let errors = ""
      let next = 0
      let seen = 0
      child.stderr.on("data", (chunk: Buffer) => errors += chunk.toString())
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString()
        // Type the next answer once its question is on the screen (after what was already answered).
        while (next < DIALOG.length) {
          const [question, answer] = DIALOG[next]!
          const at = output.indexOf(question, seen)
          if (at === -1) break
          seen = at + question.length
          next++
          child.stdin.write(`${answer}\n`)
        }
      })
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
      assert.strictEqual(code, 0, `${output}\n${errors}`)
      assert.strictEqual(next, DIALOG.length, output)
      assert.deepStrictEqual(stub.failures, [])
      // The process's root is its working directory.
      assert.include(output, "[plan_trip] Booked for Ada <ada@example.com>: Paris → Strasbourg → Zurich → Milan, 7h23")
      assert.include(output, "agent> Your trip is booked.")
    } finally {
      await stub.close()
    }
  }, 120_000)
})
