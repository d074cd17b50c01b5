/**
 * The typed failure of a Layer (or constructor) given an option it cannot
 * use: `RequestStateCodec.layer({ ttl: "0 seconds" })`,
 * `McpServer.layer({ maxRounds: 0 })`, `Redis.layerFleet({ url: "" })`.
 * The Layer fails with it when it is built, instead of throwing when it is
 * written; its message names the Layer, the option and the value.
 *
 * @since 0.4.0
 */
import { Schema } from "effect"

/**
 * An option a Layer cannot use. `layer` is who refused it (e.g.
 * `"McpServer.layer"`), `option` its path (e.g. `"legacy.maxSessions"`),
 * `value` how it was given (rendered as text; secrets are never rendered),
 * `expected` what would have been accepted.
 *
 * @since 0.4.0
 * @category errors
 */
export class InvalidOption extends Schema.TaggedError<InvalidOption>()("InvalidOption", {
  layer: Schema.String,
  option: Schema.String,
  value: Schema.String,
  expected: Schema.String
}) {
  override get message(): string {
    return `${this.layer}: option ${this.option} must be ${this.expected}, got ${this.value}`
  }

  /**
   * The error for `value` of `option`, the value rendered as text (strings
   * quoted, other values as JSON where possible). Never pass a secret.
   *
   * @since 0.4.0
   */
  static of(layer: string, option: string, value: unknown, expected: string): InvalidOption {
    return new InvalidOption({ layer, option, value: render(value), expected })
  }
}

const render = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value)
  if (typeof value !== "object" || value === null) return String(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
