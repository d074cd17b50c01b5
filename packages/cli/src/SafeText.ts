/**
 * Terminal-safe rendering of text that comes from a server, for what `mrtr`
 * shows: `@mrtr/protocol`'s `SafeText` (the client logs with the same), kept
 * here under its first name. See that module for what each function escapes.
 *
 * @since 0.1.0
 */
import { SafeText } from "@mrtr/protocol"

/**
 * `text` on one line, every control, bidirectional control, separator and
 * lone surrogate escaped visibly (`\n`, `\t`, `\u009b`, `\u202e`, ...).
 * Total: any string in, a printable one-line string out.
 *
 * @since 0.1.0
 */
export const oneLine: (text: string) => string = SafeText.oneLine

/**
 * Lines of `mrtr`'s own making (joined with `\n`) whose parts may quote a
 * server: each line made safe with `oneLine`, the line breaks kept.
 *
 * @since 0.1.0
 */
export const lines: (text: string) => string = SafeText.lines

/**
 * JSON text (from `JSON.stringify`) with the characters a terminal acts on
 * and `JSON.stringify` leaves raw (C1 and bidirectional controls, U+2028,
 * U+2029) written as `\uXXXX` escapes: `JSON.parse` of the result is the
 * same value.
 *
 * @since 0.1.0
 */
export const json: (text: string) => string = SafeText.json
