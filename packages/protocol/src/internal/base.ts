/**
 * Leaf schemas shared by `Meta.ts` and `Schema.ts`.
 *
 * `RequestMeta` (in `Meta.ts`) needs `ClientCapabilities` and
 * `Implementation`, while the message schemas (in `Schema.ts`) need
 * `RequestMeta`. Keeping the leaves here avoids an import cycle; the public
 * names are re-exported from `Schema.ts`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

/**
 * A JSON object with arbitrary members (`JSONObject` / `MetaObject` in the
 * 2026-07-28 schema). Values are not constrained further: the official
 * `JSONValue` definition omits `null` and non-integer numbers, which real
 * payloads do contain.
 *
 * @since 0.1.0
 */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
/**
 * The decoded (`Type`) side of the `JsonObject` schema.
 *
 * @since 0.1.0
 */
export type JsonObject = typeof JsonObject.Type

/**
 * An icon a client may display: `{ src, mimeType?, sizes?, theme? }`.
 * `src` is a URI (often a `data:` URI); `sizes` are strings such as `"48x48"`
 * or `"any"`; `theme` is `"light"` or `"dark"`.
 *
 * MCP 2026-07-28, schema `Icon`.
 *
 * @since 0.1.0
 */
export const Icon = Schema.Struct({
  src: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  sizes: Schema.optionalKey(Schema.Array(Schema.String)),
  theme: Schema.optionalKey(Schema.Literals(["light", "dark"]))
})
/**
 * The decoded (`Type`) side of the `Icon` schema.
 *
 * @since 0.1.0
 */
export type Icon = typeof Icon.Type

/**
 * Name and version of an MCP implementation (client or server):
 * `{ name, version, title?, description?, icons?, websiteUrl? }`.
 *
 * Sent as `_meta["io.modelcontextprotocol/clientInfo"]` on requests and
 * `_meta["io.modelcontextprotocol/serverInfo"]` on results.
 *
 * MCP 2026-07-28, schema `Implementation`.
 *
 * @since 0.1.0
 */
export const Implementation = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  version: Schema.String,
  description: Schema.optionalKey(Schema.String),
  icons: Schema.optionalKey(Schema.Array(Icon)),
  websiteUrl: Schema.optionalKey(Schema.String)
})
/**
 * The decoded (`Type`) side of the `Implementation` schema.
 *
 * @since 0.1.0
 */
export type Implementation = typeof Implementation.Type

/**
 * Capabilities a client declares, per request, in
 * `_meta["io.modelcontextprotocol/clientCapabilities"]`:
 * `{ experimental?, roots?, sampling?: { context?, tools? }, elicitation?: { form?, url? }, extensions? }`.
 *
 * `{}` means "no optional capability". `elicitation: {}` means form mode
 * only. Roots and sampling are deprecated (SEP-2577) but still defined.
 * Unknown members inside `sampling`/`elicitation` are dropped on decode;
 * `roots`, `experimental` and `extensions` keep their contents.
 *
 * MCP 2026-07-28, schema `ClientCapabilities`; basic (request metadata).
 *
 * @since 0.1.0
 */
export const ClientCapabilities = Schema.Struct({
  experimental: Schema.optionalKey(Schema.Record(Schema.String, JsonObject)),
  roots: Schema.optionalKey(JsonObject),
  sampling: Schema.optionalKey(Schema.Struct({
    context: Schema.optionalKey(JsonObject),
    tools: Schema.optionalKey(JsonObject)
  })),
  elicitation: Schema.optionalKey(Schema.Struct({
    form: Schema.optionalKey(JsonObject),
    url: Schema.optionalKey(JsonObject)
  })),
  extensions: Schema.optionalKey(Schema.Record(Schema.String, JsonObject))
})
/**
 * The decoded (`Type`) side of the `ClientCapabilities` schema.
 *
 * @since 0.1.0
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * A progress token (`string | integer`) a client puts in
 * `_meta.progressToken` to ask for `notifications/progress`.
 *
 * MCP 2026-07-28, schema `ProgressToken`; basic/patterns/progress.
 *
 * @since 0.1.0
 */
export const ProgressToken = Schema.Union([Schema.String, Schema.Int])
/**
 * The decoded (`Type`) side of the `ProgressToken` schema.
 *
 * @since 0.1.0
 */
export type ProgressToken = typeof ProgressToken.Type
