/**
 * Elicitation asks: request information from the user, in direct style.
 *
 * `yield* Elicitation.form({ message, schema })` returns the user's answer
 * decoded with `schema`; the form's `requestedSchema` is generated from the
 * same schema. `yield* Elicitation.url({ message, url })` sends the user to a
 * URL (out-of-band interaction) and returns when they accept. Both fail with
 * `ElicitationDeclined` or `ElicitationCancelled` when the user says no, and
 * with `MissingClientCapability` when the request did not declare
 * `elicitation` (form) or `elicitation.url` (url).
 * Source: MCP 2026-07-28, client/elicitation; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { Effect, type Option, Result, Schema } from "effect"
import { ElicitResult, type ElicitRequest } from "@mrtr/protocol"
import { Conversation } from "./Conversation.ts"
import * as ElicitationSchema from "./ElicitationSchema.ts"
import { ElicitationCancelled, ElicitationDeclined, type MissingClientCapability } from "./Errors.ts"

export {
  /**
   * Checks a form schema against the elicitation subset at definition time;
   * see `ElicitationSchema.makeUnsafe`.
   *
   * @since 0.1.0
   */
  makeUnsafe as formSchema
} from "./ElicitationSchema.ts"

const decodeElicitResult = Schema.decodeUnknownOption(ElicitResult)

const outcomeOf = <A>(
  key: string,
  response: unknown,
  onAccept: (content: unknown) => Result.Result<A, never> | undefined
): Result.Result<A, ElicitationDeclined | ElicitationCancelled> | undefined => {
  const decoded = decodeElicitResult(response)
  if (decoded._tag === "None") return undefined
  const result = decoded.value
  switch (result.action) {
    case "accept":
      return onAccept(result.content)
    case "decline":
      return Result.fail(
        new ElicitationDeclined(result.content === undefined ? { key } : { key, content: result.content })
      )
    case "cancel":
      return Result.fail(new ElicitationCancelled({ key }))
  }
}

/**
 * The options of a form elicitation.
 *
 * - `key`: the `inputRequests` key (default `elicitation-<n>` by program order);
 *   fixed keys keep answers stable when code between asks changes.
 * - `message`: the text shown to the user.
 * - `schema`: an Effect Schema of a flat struct of primitives, or a
 *   `FormSchema` made with {@link formSchema} at module level.
 *
 * @since 0.1.0
 */
export interface FormOptions<A> {
  readonly key?: string | undefined
  readonly message: string
  readonly schema: ElicitationSchema.FormSchemaInput<A> | ElicitationSchema.FormSchema<A>
}

// One content decoder per schema, built once: `Schema.toCodecJson` and
// `decodeUnknownOption` make new objects on every call, several times the
// cost of the decoding itself, and the same form is asked on every round.
const decoders = new WeakMap<object, (content: unknown) => Option.Option<any>>()
const contentDecoder = <A>(schema: Schema.Codec<A, any>): (content: unknown) => Option.Option<A> => {
  let decoder = decoders.get(schema)
  if (decoder === undefined) {
    decoder = Schema.decodeUnknownOption(Schema.toCodecJson(schema))
    decoders.set(schema, decoder)
  }
  return decoder
}

/**
 * Asks the user to fill in a form and returns the accepted content decoded
 * with `schema` (through its JSON codec, so `Schema.Date` fields and the like
 * work).
 *
 * Input request: `{ method: "elicitation/create", params: { mode: "form",
 * message, requestedSchema } }`. Needs the client capability `elicitation`.
 * Fails with `ElicitationDeclined` (action `decline`, even when it carries
 * content), `ElicitationCancelled` (action `cancel`) or
 * `MissingClientCapability`. An accepted answer whose content does not decode,
 * or breaks a `format` of the form (email, uri, date, date-time), is treated
 * as missing and the form is asked again. A schema outside the
 * spec's subset is a defect (`InvalidElicitationSchema`).
 *
 * @since 0.1.0
 */
export const form = <A>(
  options: FormOptions<A>
): Effect.Effect<A, ElicitationDeclined | ElicitationCancelled | MissingClientCapability, Conversation> =>
  Effect.suspend(() => {
    const made = "requestedSchema" in options.schema
      ? Result.succeed(options.schema)
      : ElicitationSchema.make(options.schema)
    if (Result.isFailure(made)) return Effect.die(made.failure)
    const { requestedSchema, schema } = made.success
    const decodeContent = contentDecoder(schema as Schema.Codec<A, any>)
    const request: ElicitRequest = {
      method: "elicitation/create",
      params: { mode: "form", message: options.message, requestedSchema } as ElicitRequest["params"]
    }
    return Conversation.use((conversation) =>
      conversation.ask({
        kind: "elicitation",
        key: options.key,
        request,
        decode: (key, response) =>
          outcomeOf(key, response, (content) => {
            // a value that breaks a `format` of the form counts as missing, like a wrong shape
            if (!ElicitationSchema.formatsHold(requestedSchema, content)) return undefined
            const value = decodeContent(content ?? {})
            return value._tag === "Some" ? Result.succeed(value.value) : undefined
          })
      })
    )
  })

/**
 * The options of a URL-mode elicitation: `key` (default `elicitation-<n>`),
 * `message` (why the user should go there) and `url` (an absolute URI).
 *
 * @since 0.1.0
 */
export interface UrlOptions {
  readonly key?: string | undefined
  readonly message: string
  readonly url: string
}

/**
 * Sends the user to `url` for an out-of-band interaction (sign-in, payment,
 * ...) and succeeds once they accept. The answer carries no content: the
 * server learns the outcome of the interaction by its own means.
 *
 * Input request: `{ method: "elicitation/create", params: { mode: "url",
 * message, url } }`. Needs the client capability `elicitation.url`.
 * Fails with `ElicitationDeclined`, `ElicitationCancelled` or
 * `MissingClientCapability`.
 *
 * @since 0.1.0
 */
export const url = (
  options: UrlOptions
): Effect.Effect<void, ElicitationDeclined | ElicitationCancelled | MissingClientCapability, Conversation> =>
  Conversation.use((conversation) =>
    conversation.ask({
      kind: "elicitation",
      key: options.key,
      request: {
        method: "elicitation/create",
        params: { mode: "url", message: options.message, url: options.url } as ElicitRequest["params"]
      },
      decode: (key, response) => outcomeOf(key, response, () => Result.succeed(undefined))
    })
  )
