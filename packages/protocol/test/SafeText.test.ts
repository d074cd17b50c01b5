/**
 * `SafeText`: server text on one line with every control, bidirectional
 * control, separator, lone surrogate and invisible format character escaped
 * visibly; JSON text with the characters a terminal acts on as `\uXXXX`
 * escapes, still the same value.
 */
import { assert, describe, it } from "vitest"
import * as SafeText from "../src/SafeText.ts"

// every UTF-16 code unit a terminal may act on, and a lone surrogate of each kind
const dangerous = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
  "\u061C",
  "\u200E",
  "\u200F",
  "\u202A",
  "\u202B",
  "\u202C",
  "\u202D",
  "\u202E",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\u2028",
  "\u2029",
  "\uD800",
  "\uDFFF"
]
const raw = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]/

describe("SafeText", () => {
  it("oneLine escapes each dangerous character visibly and keeps everything else", () => {
    for (const char of dangerous) {
      const shown = SafeText.oneLine(`a${char}b`)
      assert.notMatch(shown, raw, JSON.stringify(char))
      assert.notMatch(shown, /[\uD800-\uDFFF]/, JSON.stringify(char))
      assert.match(shown, /^a\\(n|r|t|u[0-9a-f]{4})b$/, JSON.stringify(char))
    }
    assert.strictEqual(SafeText.oneLine("line\nFAKE"), "line\\nFAKE")
    assert.strictEqual(SafeText.oneLine("Zürich → Milan 😀 \u00e9"), "Zürich → Milan 😀 \u00e9")
    assert.strictEqual(SafeText.lines("mrtr: a\nb\u009b"), "mrtr: a\nb\\u009b")
  })

  it("oneLine escapes invisible format characters too, but keeps the joiners of emoji and scripts", () => {
    assert.strictEqual(SafeText.oneLine("a\u200Bb\uFEFFc\u00ADd\u2060e"), "a\\u200bb\\ufeffc\\u00add\\u2060e")
    assert.strictEqual(SafeText.oneLine("tag\u{E0041}\u{E007F}"), "tag\\u{e0041}\\u{e007f}")
    assert.strictEqual(SafeText.oneLine("👨\u200D👩 می\u200Cخواهم"), "👨\u200D👩 می\u200Cخواهم")
    // a lone surrogate next to a format character: each escaped once
    assert.strictEqual(SafeText.oneLine("\uD800\u200B"), "\\ud800\\u200b")
  })

  it("json keeps the exact value and leaves no raw control for the terminal", () => {
    const value = { [`k${dangerous.join("")}`]: dangerous.join("x"), list: dangerous, emoji: "😀" }
    const text = SafeText.json(JSON.stringify(value, null, 2))
    assert.notMatch(text.replace(/\n/g, ""), raw)
    assert.notMatch(text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
    assert.deepStrictEqual(JSON.parse(text), value)
  })
})
