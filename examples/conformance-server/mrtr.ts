/**
 * The MRTR fixtures of the official conformance suite (SEP-2322,
 * `input-required-result-*` scenarios): tools and a prompt whose handlers ask
 * in direct style. The runtime turns every unanswered ask into an
 * `inputRequests` entry and seals the suspended handler into `requestState`;
 * nothing here builds an `InputRequiredResult` by hand.
 *
 * Keys are the ones the suite (and its reference everything-server) expects.
 */
import { Elicitation, type MissingClientCapability, Mrtr, Roots, Sampling } from "@mrtr/core"
import type { CreateMessageResult } from "@mrtr/protocol/Schema"
import { Prompt, Tool } from "@mrtr/server"
import { Effect, Option, Schema } from "effect"

/** The text of a sampling answer (its content may be one block or several). */
export const sampledText = (result: CreateMessageResult): string => {
  const blocks = Array.isArray(result.content) ? result.content : [result.content]
  return blocks.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ")
}

const userText = (text: string) => [{ role: "user" as const, content: { type: "text" as const, text } }]

const Name = Schema.Struct({ name: Schema.String })
const Confirm = Schema.Struct({ ok: Schema.Boolean })

/** The one elicitation several scenarios share; key `user_name` is what the suite answers. */
const askName = Elicitation.form({ key: "user_name", message: "What is your name?", schema: Name })

/** `input-required-result-basic-elicitation`, `-result-type`, `-missing-input-response`, `-ignore-extra-params`, `-validate-input`. */
export const elicitation = Tool.make("test_input_required_result_elicitation", {
  description: "Asks for the user's name (elicitation, key user_name), then greets them",
  handler: () => Effect.map(askName, ({ name }) => `Hello, ${name}!`)
})

/** `input-required-result-basic-sampling`. */
export const sampling = Tool.make("test_input_required_result_sampling", {
  description: "Asks the client's model a question (sampling, key capital_question), then reports its answer",
  handler: () =>
    Sampling.createMessage({
      key: "capital_question",
      messages: userText("What is the capital of France?"),
      maxTokens: 100
    }).pipe(Effect.map((answer) => `Sampling result: ${sampledText(answer)}`))
})

/** `input-required-result-basic-list-roots`. */
export const listRoots = Tool.make("test_input_required_result_list_roots", {
  description: "Asks for the client's roots (roots/list, key client_roots), then counts them",
  handler: () =>
    Roots.list({ key: "client_roots" }).pipe(
      Effect.map((roots) => `Found ${roots.length} root(s): ${roots.map((root) => root.uri).join(", ")}`)
    )
})

/** `input-required-result-request-state`: the answer only counts together with the echoed, verified state. */
export const requestState = Tool.make("test_input_required_result_request_state", {
  description: "Asks for a confirmation (key confirm); completes with state-ok once the echoed requestState verified",
  handler: () =>
    Effect.gen(function*() {
      const { ok } = yield* Elicitation.form({ key: "confirm", message: "Please confirm", schema: Confirm })
      // Round > 0 means the engine unsealed and verified the state this answer belongs to.
      const round = yield* Mrtr.round
      return round > 0
        ? `state-ok: requestState validated (round ${round}), ok=${ok}`
        : `Answered without a requestState, ok=${ok}`
    })
})

/** `input-required-result-multiple-input-requests`: three asks of three kinds in one round. */
export const multipleInputs = Tool.make("test_input_required_result_multiple_inputs", {
  description: "Asks for a name, a model greeting and the client's roots at once, then combines them",
  handler: () =>
    Effect.gen(function*() {
      const [{ name }, greeting, roots] = yield* Mrtr.all([
        askName,
        Sampling.createMessage({ key: "greeting", messages: userText("Generate a greeting"), maxTokens: 50 }),
        Roots.list({ key: "client_roots" })
      ])
      return `${sampledText(greeting)} ${name}! You have ${roots.length} root(s).`
    })
})

/** `input-required-result-multi-round`: a second question only after the first is answered. */
export const multiRound = Tool.make("test_input_required_result_multi_round", {
  description: "Asks for a name, then (next round) for a favourite colour",
  handler: () =>
    Effect.gen(function*() {
      const { name } = yield* Elicitation.form({ key: "step1", message: "What is your name?", schema: Name })
      const { color } = yield* Elicitation.form({
        key: "step2",
        message: `Hi ${name}, what is your favourite colour?`,
        schema: Schema.Struct({ color: Schema.String })
      })
      return `${name} likes ${color}`
    })
})

/** `input-required-result-tampered-state`: the sealed state is AEAD-protected; any change is the frozen -32602. */
export const tamperedState = Tool.make("test_input_required_result_tampered_state", {
  description: "Asks for a confirmation (key confirm) under an integrity-protected requestState",
  handler: () =>
    Elicitation.form({ key: "confirm", message: "Please confirm", schema: Confirm }).pipe(
      Effect.map(({ ok }) => `tampered-state check passed, ok=${ok}`)
    )
})

/** An ask the client may not support becomes `None` instead of failing the request. */
const ifDeclared = <A, E, R>(
  ask: Effect.Effect<A, E | MissingClientCapability, R>
): Effect.Effect<Option.Option<A>, Exclude<E, MissingClientCapability>, R> =>
  ask.pipe(
    Effect.map(Option.some),
    Effect.catchTag("MissingClientCapability", () => Effect.succeedNone)
  ) as Effect.Effect<Option.Option<A>, Exclude<E, MissingClientCapability>, R>

/** `input-required-result-capability-check`: only asks what the request's clientCapabilities allow. */
export const capabilities = Tool.make("test_input_required_result_capabilities", {
  description: "Asks for a name (elicitation) and a model answer (sampling), each only if the client declared it",
  handler: () =>
    Effect.gen(function*() {
      const [name, answer] = yield* Mrtr.all([
        ifDeclared(Elicitation.form({ key: "elicit_input", message: "What is your name?", schema: Name })),
        ifDeclared(Sampling.createMessage({ key: "sample_input", messages: userText("Say hello"), maxTokens: 50 }))
      ])
      const parts = [
        Option.match(name, { onNone: () => "no elicitation", onSome: ({ name }) => `name=${name}` }),
        Option.match(answer, { onNone: () => "no sampling", onSome: (a) => `sampled=${sampledText(a)}` })
      ]
      return `capabilities-ok: ${parts.join(", ")}`
    })
})

/** `input-required-result-non-tool-request`: MRTR on `prompts/get`. */
export const prompt = Prompt.make("test_input_required_result_prompt", {
  description: "Asks what context to use (key user_context), then builds the prompt from it",
  handler: () =>
    Elicitation.form({
      key: "user_context",
      message: "What context should the prompt use?",
      schema: Schema.Struct({ context: Schema.String })
    }).pipe(Effect.map(({ context }) => `Prompt with context: ${context}`))
})

export const tools = [
  elicitation,
  sampling,
  listRoots,
  requestState,
  multipleInputs,
  multiRound,
  tamperedState,
  capabilities
] as const
