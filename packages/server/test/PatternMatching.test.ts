import { describe, expect, it } from "@effect/vitest"
import { Resource } from "@mrtr/server"
import * as Glob from "../src/internal/glob.ts"

// The matcher as a regular expression would write it: the reference the linear matcher must agree with.
const VARIABLE = /\{([+#./;?&]?)([A-Za-z0-9_]+)\*?\}/g
const byRegex = (template: string) => {
  const names: Array<string> = []
  let pattern = "^"
  let last = 0
  for (const match of template.matchAll(VARIABLE)) {
    pattern += template.slice(last, match.index).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    const [, operator, name] = match
    names.push(name!)
    pattern += operator === "+" || operator === "#"
      ? (operator === "#" ? "#" : "") + "(.+)"
      : (operator === "" ? "" : `\\${operator}`) + "([^/?#]+)"
    last = match.index! + match[0].length
  }
  const regex = new RegExp(pattern + template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$")
  return (uri: string): Record<string, string> | undefined => {
    const found = regex.exec(uri)
    if (found === null) return undefined
    const variables: Record<string, string> = {}
    try {
      names.forEach((name, i) => (variables[name] = decodeURIComponent(found[i + 1]!)))
    } catch {
      return undefined
    }
    return variables
  }
}

// A small seeded generator, so that a failure names its case and reruns identically.
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
  return seed / 0x80000000
}
const pick = <A>(next: () => number, items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!

const templatePieces = ["x", "/", ":", "a", "{+p}", "{q}", "{#f}", "{.e}", "{/s}", "{?k}", "{+r}", "-", "//"]
const uriChars = ["x", "a", "/", ":", "-", ".", "?", "#", "k", "\n", "%41", "%zz", "é"]

describe("Resource.compileTemplate", () => {
  it("agrees with the regular expression it replaces on 20,000 generated templates and URIs", () => {
    const next = random(20_261_207)
    for (let i = 0; i < 20_000; i++) {
      let template = ""
      const used = new Set<string>()
      for (let j = 0, n = 1 + Math.floor(next() * 5); j < n; j++) {
        const piece = pick(next, templatePieces)
        // A variable name appears once in a template.
        const name = piece.match(/[a-z]+\}/)?.[0]
        if (name !== undefined && used.has(name)) continue
        if (name !== undefined) used.add(name)
        template += piece
      }
      let uri = ""
      for (let j = 0, n = Math.floor(next() * 10); j < n; j++) uri += pick(next, uriChars)
      // Half the cases are built to match: the template with its variables filled in.
      if (next() < 0.5) {
        uri = template.replace(
          VARIABLE,
          (_, operator: string) =>
            (operator === "+" || operator === "" ? "" : operator) + pick(next, ["x", "a/b", "x.y", "%41", "a:b", "q?"])
        )
      }
      const expected = byRegex(template)(uri)
      const actual = Resource.compileTemplate(template)(uri)
      expect({ template, uri, variables: actual }).toStrictEqual({ template, uri, variables: expected })
    }
  })

  it("takes the longest text for the earlier of two ambiguous variables", () => {
    expect(Resource.compileTemplate("docs://{+repo}/{+path}")("docs://a/b/c")).toStrictEqual({
      repo: "a/b",
      path: "c"
    })
    expect(Resource.compileTemplate("x://{+a}/x/{+b}")("x://p/x/q/x/")).toStrictEqual({ a: "p", b: "q/x/" })
    expect(Resource.compileTemplate("test://files/{+path}")("test://files/a%20b/c")).toStrictEqual({
      path: "a b/c"
    })
    expect(Resource.compileTemplate("test://t/{id}")("test://t/a/b")).toBeUndefined()
  })

  it("refuses a URI that a backtracking matcher would take cubic time on, and one past 65,536 characters", () => {
    // Three reserved variables and a URI that cannot match (a line terminator at the end): a regular expression
    // tries every split of the URI among the three variables before giving up.
    const match = Resource.compileTemplate("docs://{+repo}/{+branch}/{+path}")
    expect(match("docs://" + "/".repeat(60_000) + "\n")).toBeUndefined()
    expect(match("docs://" + "a/".repeat(30_000) + "x")).toStrictEqual({
      repo: "a/".repeat(29_998) + "a",
      branch: "a",
      path: "x"
    })
    expect(match("docs://a/b/" + "c".repeat(65_536))).toBeUndefined()
  })
})

describe("Mount's include / exclude globs", () => {
  const byRegex = (glob: string) =>
    new RegExp(
      "^" + Array.from(glob, (c) => c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("") +
        "$",
      "s"
    )

  it("agree with the regular expression they replace on 20,000 generated globs and texts", () => {
    const next = random(7)
    for (let i = 0; i < 20_000; i++) {
      let glob = ""
      for (let j = 0, n = Math.floor(next() * 6); j < n; j++) glob += pick(next, ["*", "?", "a", "b", "/", "."])
      let text = ""
      for (let j = 0, n = Math.floor(next() * 8); j < n; j++) text += pick(next, ["a", "b", "/", ".", "\n"])
      expect({ glob, text, matches: Glob.matcher(glob)(text) }).toStrictEqual({
        glob,
        text,
        matches: byRegex(glob).test(text)
      })
    }
  })

  it("decide a long text that does not match without backtracking", () => {
    expect(Glob.matcher("*a*a*a*a*b")("a".repeat(50_000))).toBe(false)
    expect(Glob.matcher("*a*a*a*a*b")("a".repeat(50_000) + "b")).toBe(true)
  })
})
