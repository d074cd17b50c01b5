/**
 * Resources and resource templates, whose read handlers may ask.
 *
 * A static resource has a fixed `uri`; a template has an RFC 6570
 * `uriTemplate` whose variables are matched out of the requested URI and
 * decoded with an optional Effect Schema. Both handlers may ask
 * (`resources/read` supports MRTR).
 * Source: MCP 2026-07-28, server/resources; basic/patterns/mrtr.
 *
 * @since 0.1.0
 */
import { ElicitationSchema } from "@mrtr/core"
import type { Conversation as ConversationModule } from "@mrtr/core/engine"
import type {
  ReadResourceResult,
  Resource as WireResource,
  ResourceTemplate as WireResourceTemplate
} from "@mrtr/protocol/Schema"
import { Effect, Schema } from "effect"
import * as UriTemplate from "./internal/uriTemplate.ts"
import type { Completer } from "./Prompt.ts"
import type { McpRequest } from "./RequestContext.ts"

type Conversation = ConversationModule.Conversation

/**
 * What a read handler may return: a string (one text resource content with
 * the resource's `mimeType`), or `contents` (text or blob resource contents;
 * `uri` defaults to the requested URI).
 *
 * @category models
 * @since 0.1.0
 */
export type ResourceOutput =
  | string
  | {
    readonly contents: ReadonlyArray<
      | { readonly uri?: string; readonly mimeType?: string; readonly text: string }
      | { readonly uri?: string; readonly mimeType?: string; readonly blob: string }
    >
  }

type Contents = ReadResourceResult["contents"]

/**
 * A registered resource or template: its wire definition, a `match` that
 * says whether it serves a URI (returning the template variables), and
 * `read`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Resource<E = never, R = never> {
  readonly _tag: "Resource" | "ResourceTemplate"
  readonly key: string
  readonly definition: WireResource | WireResourceTemplate
  /**
   * OAuth scopes a caller's access token must hold to use this, on HTTP with
   * `Authorization.layer` (checked before the handler runs: HTTP 403
   * `insufficient_scope` otherwise). Default none. MCP 2026-07-28 basic/authorization.
   */
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Who may see and read it (see `Tool.visible`). Default: everyone. */
  readonly visible?: ((principal: string | undefined) => boolean) | undefined
  readonly match: (uri: string) => Readonly<Record<string, string>> | undefined
  readonly read: (
    uri: string,
    variables: Readonly<Record<string, string>>
  ) => Effect.Effect<{ readonly contents: Contents }, E | InvalidResourceUri, R | Conversation | McpRequest>
  readonly completions: Readonly<Record<string, Completer>>
}

/**
 * The URI matched a template's shape but its variables did not decode with
 * the template's `parameters` schema. The server answers JSON-RPC `-32602`.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidResourceUri extends Schema.TaggedError<InvalidResourceUri>()("InvalidResourceUri", {
  uri: Schema.String,
  issue: Schema.String
}) {
  override get message(): string {
    return `Invalid resource URI ${this.uri}: ${this.issue}`
  }
}

const toContents = (uri: string, mimeType: string | undefined, output: ResourceOutput): Contents =>
  (typeof output === "string"
    ? [{ uri, text: output, ...(mimeType === undefined ? {} : { mimeType }) }]
    : output.contents.map((c) => ({ uri, ...(mimeType === undefined ? {} : { mimeType }), ...c }))) as Contents

interface Common {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly mimeType?: string | undefined
  /** OAuth scopes needed to read it on an authorizing HTTP transport (see `Authorization`). */
  readonly scopes?: ReadonlyArray<string> | undefined
  /**
   * The form schemas the handler asks, by form name: checked when the
   * resource is defined (`InvalidElicitationSchema` naming the resource, the
   * form and the field), instead of failing when read.
   */
  readonly forms?: ElicitationSchema.DeclaredForms | undefined
}

const common = (options: Common) => ({
  name: options.name,
  ...(options.title === undefined ? {} : { title: options.title }),
  ...(options.description === undefined ? {} : { description: options.description }),
  ...(options.mimeType === undefined ? {} : { mimeType: options.mimeType })
})

/**
 * Defines a static resource at `uri`. Throws `InvalidElicitationSchema`
 * when a declared form (`forms`) is outside the elicitation subset.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <E = never, R = never>(
  options: Common & {
    readonly uri: string
    readonly size?: number | undefined
    readonly handler: Effect.Effect<ResourceOutput, E, R>
  }
): Resource<E, Exclude<R, Conversation | McpRequest>> => {
  ElicitationSchema.checkForms(`resource "${options.uri}"`, options.forms)
  return makeStatic(options)
}

const makeStatic = <E, R>(
  options: Common & {
    readonly uri: string
    readonly size?: number | undefined
    readonly handler: Effect.Effect<ResourceOutput, E, R>
  }
): Resource<E, Exclude<R, Conversation | McpRequest>> => ({
  _tag: "Resource",
  key: options.uri,
  scopes: options.scopes,
  definition: { uri: options.uri, ...common(options), ...(options.size === undefined ? {} : { size: options.size }) },
  match: (uri) => (uri === options.uri ? {} : undefined),
  read: (uri) =>
    Effect.map(options.handler, (output) => ({ contents: toContents(uri, options.mimeType, output) })) as any,
  completions: {}
})

/**
 * Compiles an RFC 6570 template into a matcher. Supported expressions:
 * `{var}` (one segment, no `/ ? #`, percent-decoded) and `{+var}` / `{#var}`
 * (reserved expansion: anything, including `/`). Other operators match like
 * `{var}` after their prefix character. Where a template is ambiguous
 * (`{+a}/{+b}`), the earlier variable takes the longest text that lets the rest
 * match. Matching takes time linear in the URI's length whatever the template
 * (no backtracking), and a URI longer than 65,536 characters matches no template.
 *
 * @category templates
 * @since 0.1.0
 */
export const compileTemplate: (template: string) => (uri: string) => Record<string, string> | undefined =
  UriTemplate.compileTemplate

/**
 * Defines a resource template: `uriTemplate` (RFC 6570, see
 * {@link compileTemplate}), optional `parameters` schema decoding the
 * variables (strings in), optional `completions` per variable, and a handler
 * receiving the decoded variables and the requested URI.
 *
 * @category constructors
 * @since 0.1.0
 */
export const template = <
  P extends Schema.Codec<any, Readonly<Record<string, string>>, never, never>,
  E = never,
  R = never
>(
  options: Common & {
    readonly uriTemplate: string
    readonly parameters?: P | undefined
    readonly completions?: Readonly<Record<string, Completer>> | undefined
    readonly handler: (params: P["Type"], uri: string) => Effect.Effect<ResourceOutput, E, R>
  }
): Resource<E, Exclude<R, Conversation | McpRequest>> => {
  ElicitationSchema.checkForms(`resource template "${options.uriTemplate}"`, options.forms)
  const match = compileTemplate(options.uriTemplate)
  const decode = options.parameters === undefined
    ? Effect.succeed
    : Schema.decodeUnknownEffect(options.parameters)
  return {
    _tag: "ResourceTemplate",
    key: options.uriTemplate,
    scopes: options.scopes,
    definition: { uriTemplate: options.uriTemplate, ...common(options) },
    match,
    read: (uri, variables) =>
      (decode(variables) as Effect.Effect<P["Type"], Schema.SchemaError>).pipe(
        Effect.mapError((issue) => new InvalidResourceUri({ uri, issue: issue.message })),
        Effect.flatMap((params) => options.handler(params, uri)),
        Effect.map((output) => ({ contents: toContents(uri, options.mimeType, output) }))
      ) as any,
    completions: options.completions ?? {}
  }
}
