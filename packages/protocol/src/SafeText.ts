/**
 * Text that comes from a peer (a server's keys, field names, titles,
 * messages, URLs, error messages, results; a tool's name) made safe to show
 * on a terminal or to write into a log line: it must not be able to pass for
 * a line of the program's own, nor drive the terminal. The `mrtr` command
 * line renders with it (`@mrtr/cli`'s `SafeText` is this module), the client
 * logs with it.
 *
 * - `oneLine`: for text shown to a person. Every control character is
 *   escaped visibly: line breaks and tabs as `\n`, `\r`, `\t`; other C0
 *   controls, DEL and C1 controls (U+0080–U+009F, e.g. U+009B, the one-byte
 *   CSI) as `\u009b`; so are the bidirectional controls (U+061C, U+200E,
 *   U+200F, U+202A–U+202E, U+2066–U+2069), the line and paragraph
 *   separators (U+2028, U+2029), lone surrogates, and every other invisible
 *   format character but the zero-width joiners U+200C and U+200D (Unicode's
 *   `Cf`: U+200B, U+FEFF, U+00AD, the tag
 *   characters U+E0000–U+E007F as `\u{e0041}`, ...). A server string is then
 *   one line whose every character is visible, and the program's own line
 *   structure is the only one on the screen.
 * - `json`: for the JSON on stdout. `JSON.stringify` already escapes C0
 *   controls and lone surrogates; this also writes the C1 controls, the
 *   bidirectional controls and U+2028/U+2029 as `\uXXXX` escapes, which
 *   JSON reads back as the very same characters: the output stays exact
 *   JSON (the same value), only written in ASCII escapes where it matters.
 *
 * Gotcha: escaping is visible but not reversible on screen (a server string
 * that contains the two characters `\n` looks like one that contained a line
 * break); the JSON output is the exact record.
 *
 * @since 0.1.0
 */

// C0 (all, line breaks included), DEL, C1, bidi controls, line/paragraph separators, lone surrogates.
const UNSAFE =
  /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

// What JSON.stringify leaves as is but a terminal would act on.
const UNSAFE_IN_JSON = /[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]/g

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

const hex = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`

// Invisible format characters (zero-width spaces and joiners, the BOM, the soft hyphen, tag characters, ...):
// Unicode's `Cf`, applied after `UNSAFE` (whose surrogate checks need a regex without the `u` flag), except the
// zero-width (non-)joiners U+200C and U+200D, which emoji sequences and several scripts need.
const INVISIBLE = /(?![\u200C\u200D])\p{Cf}/gu

/** `\uXXXX` for a BMP character, `\u{XXXXX}` beyond it. */
const hexCodePoint = (char: string): string => {
  const point = char.codePointAt(0)!
  return point > 0xffff ? `\\u{${point.toString(16)}}` : `\\u${point.toString(16).padStart(4, "0")}`
}

/**
 * `text` on one line, every control, bidirectional control, separator and
 * lone surrogate escaped visibly (`\n`, `\t`, `\u009b`, `\u202e`, ...).
 * Total: any string in, a printable one-line string out.
 *
 * @category formatting
 * @since 0.1.0
 */
export const oneLine = (text: string): string =>
  text.replace(UNSAFE, (char) => NAMED[char] ?? hex(char)).replace(INVISIBLE, hexCodePoint)

/**
 * Lines of the program's own making (joined with `\n`) whose parts may quote a
 * server: each line made safe with `oneLine`, the line breaks kept.
 *
 * @category formatting
 * @since 0.1.0
 */
export const lines = (text: string): string => text.split("\n").map(oneLine).join("\n")

/**
 * JSON text (from `JSON.stringify`) with the characters a terminal acts on
 * and `JSON.stringify` leaves raw (C1 and bidirectional controls, U+2028,
 * U+2029) written as `\uXXXX` escapes: `JSON.parse` of the result is the
 * same value. Outside strings JSON text holds none of them, so every
 * replacement is inside a string.
 *
 * @category formatting
 * @since 0.1.0
 */
export const json = (text: string): string => text.replace(UNSAFE_IN_JSON, hex)
