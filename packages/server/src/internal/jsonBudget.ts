/**
 * A bound on the work one request body can cost before `JSON.parse`: counts
 * the JSON values in the raw bytes (every object, array, string, number,
 * `true`/`false`/`null`, as separated by the structural characters outside
 * strings) in one linear scan and stops as soon as the budget is exceeded.
 *
 * Why: the cost of a body is not its size. A legal 4 MB body of 250,000
 * argument keys cost about 120 ms to parse and 300 ms more to canonicalize
 * and digest on the event loop (every other request waits), where a 4 MB
 * string costs about 10 ms. Counting values first keeps the work per request
 * proportional to its bytes, at about 1 ms per MB for the scan.
 *
 * Gotchas: the count is an upper bound, made without validating the JSON
 * (`JSON.parse` does that afterwards): `[1,,2]` counts three. Bytes inside
 * strings (including escaped quotes) are skipped, so long strings are cheap.
 *
 * Source: MCP 2026-07-28, basic/transports (Streamable HTTP); issue 11, item 9.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b

/**
 * True when `bytes` (UTF-8 JSON text) holds more than `max` values. Scans at
 * most until the budget is exceeded; never throws.
 */
export const exceedsValues = (bytes: Uint8Array, max: number): boolean => {
  // One value for the top level, one more per comma and per container
  // (an object's members are key-value pairs: a comma separates two of them,
  // and each key is counted with its value, so keys cost as much as values).
  let values = 1
  const length = bytes.length
  for (let i = 0; i < length; i++) {
    const byte = bytes[i]!
    if (byte === QUOTE) {
      // skip the string: to the next quote not escaped by an odd run of backslashes
      for (i++; i < length; i++) {
        const inner = bytes[i]!
        if (inner === BACKSLASH) i++
        else if (inner === QUOTE) break
      }
    } else if (byte === COMMA || byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++values > max) return true
    }
  }
  return false
}
