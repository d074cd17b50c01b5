/**
 * `Refusal`: reads why a server refused a form answer, from the `message` of
 * the form it asks again. An `@mrtr/core` server that does not accept an
 * accepted form's `content` (a wrong shape, a bound or format broken) asks
 * the same input request key again, its `message` starting with
 * `Your answer was not accepted: <reason> Please answer again.`, a blank
 * line, then the form's own message (`Elicitation.refusedMessage`).
 *
 * Clients use it to show the reason apart (the terminal), or to stop giving
 * the same refused answer again (answers files, scripted users).
 *
 * Gotcha: the reason is server text; escape it before printing it to a
 * terminal. Other servers may word a refusal differently: a message without
 * the prefix has no reason.
 *
 * Source: MCP 2026-07-28, client/elicitation, basic/patterns/mrtr (a retry
 * whose input responses do not satisfy the server is answered with new
 * input requests); `@mrtr/core` `Elicitation.refusedPrefix`.
 *
 * @since 0.1.0
 */

/**
 * The first words of the `message` of a form asked again after a refused
 * answer: `"Your answer was not accepted: "` (as `@mrtr/core`'s
 * `Elicitation.refusedPrefix`).
 *
 * @category constants
 * @since 0.1.0
 */
export const refusedPrefix = "Your answer was not accepted: "

const PLEASE = " Please answer again."

/**
 * Splits a form's `message` into the refusal (when the message starts with
 * {@link refusedPrefix}: its first paragraph, prefix included) and the
 * form's own message. `{ message }` alone when there is no refusal.
 *
 * @category parsing
 * @since 0.1.0
 */
export const split = (message: string): { readonly reason?: string; readonly message: string } => {
  if (!message.startsWith(refusedPrefix)) return { message }
  const end = message.indexOf("\n\n")
  return end === -1
    ? { reason: message, message: "" }
    : { reason: message.slice(0, end), message: message.slice(end + 2) }
}

/**
 * Only the reason of a refusal, without the prefix nor the closing
 * "Please answer again.": e.g. `"Seats" must be at most 4.`; `undefined`
 * when the message carries no refusal.
 *
 * @category parsing
 * @since 0.1.0
 */
export const reasonOf = (message: string): string | undefined => {
  const { reason } = split(message)
  if (reason === undefined) return undefined
  const bare = reason.slice(refusedPrefix.length)
  return bare.endsWith(PLEASE) ? bare.slice(0, -PLEASE.length) : bare
}
