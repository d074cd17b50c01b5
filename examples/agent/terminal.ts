/**
 * Elicitation forms answered at the terminal: the server's message, then one line per field of its
 * `requestedSchema` (a title, the choices, the default). An empty line takes the default or skips an optional
 * field; "no" to the first question declines the form. The server checks the answer: a refused one comes back with
 * the reason first in its message, and is asked again.
 */
import { ElicitationHandler, Errors } from "@mrtr/client"
import type { ElicitResult } from "@mrtr/protocol/Schema"
import { Effect, Terminal } from "effect"

interface Field {
  readonly type?: string
  readonly title?: string
  readonly description?: string
  readonly default?: unknown
  readonly enum?: ReadonlyArray<string>
  readonly oneOf?: ReadonlyArray<{ readonly const: string; readonly title?: string }>
  readonly items?: { readonly enum?: ReadonlyArray<string>; readonly anyOf?: ReadonlyArray<{ readonly const: string }> }
}

const choicesOf = (field: Field): ReadonlyArray<string> | undefined =>
  field.enum ?? field.oneOf?.map((option) => option.const) ?? field.items?.enum ??
    field.items?.anyOf?.map((option) => option.const)

/** A line typed for `field`, as the form's value (`undefined`: skipped). */
const parse = (field: Field, line: string): unknown => {
  const text = line.trim()
  if (text === "") return field.default
  switch (field.type) {
    case "boolean":
      return /^(y|yes|true)$/i.test(text)
    case "integer":
    case "number":
      return Number(text)
    case "array":
      return text.split(",").map((item) => item.trim()).filter((item) => item !== "")
    default:
      return text
  }
}

const ask = (terminal: Terminal.Terminal, question: string) =>
  terminal.display(question).pipe(Effect.andThen(terminal.readLine), Effect.orElseSucceed(() => ""))

/** Asks one form at the terminal. */
export const answerForm = Effect.fn("answerForm")(function*(
  message: string,
  requestedSchema: { readonly properties: Readonly<Record<string, Field>>; readonly required?: ReadonlyArray<string> }
) {
  const terminal = yield* Terminal.Terminal
  yield* terminal.display(`\n${message}\n`)
  const go = yield* ask(terminal, "Answer it? [Y/n] ")
  if (/^n/i.test(go.trim())) return ElicitationHandler.decline
  const content: Record<string, unknown> = {}
  for (const [name, field] of Object.entries(requestedSchema.properties)) {
    const choices = choicesOf(field)
    const hints = [
      field.type === "boolean" ? "y/n" : undefined,
      choices === undefined ? undefined : choices.join(field.type === "array" ? ", " : " | "),
      field.default === undefined ? undefined : `default ${String(field.default)}`,
      requestedSchema.required?.includes(name) ? undefined : "optional"
    ].filter((hint) => hint !== undefined)
    const label = `${field.title ?? name}${hints.length === 0 ? "" : ` (${hints.join("; ")})`}: `
    const value = parse(field, yield* ask(terminal, label))
    if (value !== undefined) content[name] = value
  }
  return ElicitationHandler.accept(content as ElicitResult["content"])
})

/** The client's form handler: every form asked at the terminal in context. */
export const layer = ElicitationHandler.layer({
  form: (params, context) =>
    answerForm(params.message, params.requestedSchema as never).pipe(
      Effect.mapError((error) =>
        new Errors.InputHandlerError({ kind: "elicitation", key: context.key, reason: error.message })
      )
    )
})
