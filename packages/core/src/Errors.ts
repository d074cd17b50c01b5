/**
 * The typed failures of the continuation engine.
 *
 * A handler sees `ElicitationDeclined`, `ElicitationCancelled` and
 * `MissingClientCapability` at its asks and may catch them. The other errors
 * end a request: the server maps each to the JSON-RPC error named in its
 * docstring (MCP 2026-07-28, basic/patterns/mrtr and basic/lifecycle).
 *
 * @since 0.1.0
 */
import { ClientCapabilities } from "@mrtr/protocol/Schema"
import { Schema } from "effect"

/**
 * The user explicitly declined an elicitation (`ElicitResult.action === "decline"`).
 *
 * `key` is the input request key; `content` is whatever content the client sent
 * along with the decline (a decline carrying `content` is still a decline).
 * Source: MCP 2026-07-28, client/elicitation ("Response Actions").
 *
 * @category errors
 * @since 0.1.0
 */
export class ElicitationDeclined extends Schema.TaggedError<ElicitationDeclined>()("ElicitationDeclined", {
  key: Schema.String,
  content: Schema.optionalKey(Schema.Unknown)
}) {
  override get message(): string {
    return `The user declined the elicitation "${this.key}"`
  }
}

/**
 * The user dismissed an elicitation without an explicit choice
 * (`ElicitResult.action === "cancel"`).
 * Source: MCP 2026-07-28, client/elicitation ("Response Actions").
 *
 * @category errors
 * @since 0.1.0
 */
export class ElicitationCancelled extends Schema.TaggedError<ElicitationCancelled>()("ElicitationCancelled", {
  key: Schema.String
}) {
  override get message(): string {
    return `The user cancelled the elicitation "${this.key}"`
  }
}

/**
 * An ask needs a client capability that the request's
 * `_meta["io.modelcontextprotocol/clientCapabilities"]` did not declare.
 *
 * `requiredCapabilities` is a `ClientCapabilities` object, e.g. `{ elicitation: {} }`.
 * A handler may catch it to fall back; uncaught, the server answers JSON-RPC
 * `-32021` (MissingRequiredClientCapability) with `data.requiredCapabilities`, HTTP 400.
 * Source: MCP 2026-07-28, basic/patterns/mrtr ("only request input for declared capabilities").
 *
 * @category errors
 * @since 0.1.0
 */
export class MissingClientCapability extends Schema.TaggedError<MissingClientCapability>()(
  "MissingClientCapability",
  {
    key: Schema.String,
    requiredCapabilities: ClientCapabilities
  }
) {
  override get message(): string {
    return `The ask "${this.key}" needs the client capability ${
      JSON.stringify(this.requiredCapabilities)
    }, which the request did not declare`
  }
}

/**
 * The Effect Schema given to `Elicitation.form` cannot be expressed as the spec's
 * flat `requestedSchema` subset (top-level primitive properties: strings with
 * formats email/uri/date/date-time and length bounds, numbers/integers with
 * bounds, booleans, single- and multi-select enums).
 *
 * `path` names the offending property (empty for the top level).
 * This is a programming error: it is raised when the form is defined
 * (`Elicitation.formSchema`) and dies at the ask otherwise.
 * Source: MCP 2026-07-28, client/elicitation ("Requested Schema").
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidElicitationSchema extends Schema.TaggedError<InvalidElicitationSchema>()(
  "InvalidElicitationSchema",
  {
    path: Schema.String,
    reason: Schema.String
  }
) {
  override get message(): string {
    return `Invalid elicitation schema${this.path === "" ? "" : ` at "${this.path}"`}: ${this.reason}`
  }
}

/**
 * A value that canonical JSON (RFC 8785) cannot represent: a number outside
 * the finite IEEE 754 range (`1e400` parses to `Infinity`), a string or an
 * object key holding a lone UTF-16 surrogate (`"\ud800"`), or something that
 * is not JSON at all (a `bigint`, a function, a cycle). Its digest would be
 * lossy or undefined, so such a value is never digested.
 *
 * `path` locates the value (`arguments/x`, `arguments/list/0`), `reason` says
 * what is wrong in plain words. Request arguments that fail so are answered
 * JSON-RPC `-32602` (InvalidParams) with this message.
 * Source: RFC 8785 sections 3.2.2.2 (strings), 3.2.2.3 (numbers).
 *
 * @category errors
 * @since 0.1.0
 */
export class NotCanonicalJson extends Schema.TaggedError<NotCanonicalJson>()("NotCanonicalJson", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `The value at ${this.path} cannot be represented in canonical JSON: ${this.reason}`
  }
}

/**
 * The conversation would exceed the server's cap on rounds per request
 * (`maxRounds`, default 16).
 *
 * The server answers JSON-RPC `-32602` (InvalidParams) with this message.
 *
 * @category errors
 * @since 0.1.0
 */
export class RoundLimitExceeded extends Schema.TaggedError<RoundLimitExceeded>()("RoundLimitExceeded", {
  maxRounds: Schema.Number
}) {
  override get message(): string {
    return `The request needed more than ${this.maxRounds} rounds of input`
  }
}

/**
 * The replay journal would exceed the server's size cap (`maxJournalBytes`,
 * bytes of its compact JSON encoding as sealed, default 32 KiB).
 *
 * The server answers JSON-RPC `-32603` (InternalError): the handler asked for
 * more than the server is configured to carry.
 *
 * @category errors
 * @since 0.1.0
 */
export class JournalTooLarge extends Schema.TaggedError<JournalTooLarge>()("JournalTooLarge", {
  size: Schema.Number,
  maxJournalBytes: Schema.Number
}) {
  override get message(): string {
    return `The replay journal (${this.size} bytes) exceeds the cap of ${this.maxJournalBytes} bytes`
  }
}

/**
 * A secure elicitation's value cannot be had: the user consented, but the
 * interaction page `expired` before it was completed (or collected), its value
 * was already `handedOut` (an older `requestState` replayed after the value
 * was taken), or the submitted value was `refused` by the ask's own schema
 * (a check the page could not show). `key` is the input request key.
 * A handler may catch it (to ask again under another key, or give up);
 * uncaught, the server answers JSON-RPC `-32603` with this message.
 * Source: MCP 2026-07-28, client/elicitation (URL mode).
 *
 * @category errors
 * @since 0.1.0
 */
export class InteractionUnavailable extends Schema.TaggedError<InteractionUnavailable>()("InteractionUnavailable", {
  key: Schema.String,
  reason: Schema.Literals(["expired", "handedOut", "refused"])
}) {
  override get message(): string {
    switch (this.reason) {
      case "expired":
        return `The page of the secure elicitation "${this.key}" expired before it was completed`
      case "handedOut":
        return `The value of the secure elicitation "${this.key}" was already handed out`
      case "refused":
        return `The value entered on the page of the secure elicitation "${this.key}" was refused`
    }
  }
}

/**
 * A secure elicitation (`Elicitation.secure`) was refused before its page was
 * made, because nobody could verify that whoever opens the page is the user
 * who asked: the URL alone would let anyone it reaches answer, and the value
 * would go to whoever started the call (URL-mode phishing). `reason`:
 *
 * - `"unauthenticated"`: the request has no principal (authorization is off)
 *   and the interaction page was not told that the server has a single user
 *   (`InteractionPage.layer({ singleUser: true })`);
 * - `"pageCannotIdentify"`: the request belongs to an authenticated user, but
 *   the interaction page cannot tell who opens it (no `principal` option), so
 *   nobody could ever complete it.
 *
 * A configuration error of the server, not the user's: uncaught, the server
 * answers JSON-RPC `-32603` (InternalError) with this message, which names
 * the fix. A handler may catch it (to fall back to a form, for what is not a
 * secret).
 * Source: MCP 2026-07-28, client/elicitation (URL mode, security
 * considerations: "the server MUST verify the identity of the user who opens
 * the URL").
 *
 * @category errors
 * @since 0.3.0
 */
export class UserIdentityRequired extends Schema.TaggedError<UserIdentityRequired>()("UserIdentityRequired", {
  key: Schema.String,
  reason: Schema.Literals(["unauthenticated", "pageCannotIdentify"])
}) {
  override get message(): string {
    switch (this.reason) {
      case "unauthenticated":
        return `The secure elicitation "${this.key}" was refused: the request is not authenticated, so the server ` +
          `cannot verify that whoever opens its page is the user who asked (anyone given the link could answer). ` +
          `Turn authorization on, or, for a server whose only user is the person at this machine, acknowledge it ` +
          `with InteractionPage.layer({ singleUser: true })`
      case "pageCannotIdentify":
        return `The secure elicitation "${this.key}" was refused: the request belongs to an authenticated user, but ` +
          `the interaction page cannot tell who opens it; give InteractionPage.layer a principal (who the browser's ` +
          `user is, e.g. from your sign-in cookie)`
    }
  }
}
