/**
 * The README and `docs/` show only code from files of this repository that are typechecked and tested (see
 * scripts/snippets.ts), link only to what exists, and the index links every page; the README stays a short page.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { brokenLinks, markdownFiles, problems, root } from "../scripts/snippets.ts"

describe("docs", () => {
  it("every snippet equals its source file's region, and every TypeScript block has one", () => {
    assert.deepStrictEqual(problems(), [])
  })

  it("every relative link resolves and docs/README.md links every page", () => {
    assert.deepStrictEqual(brokenLinks(), [])
  })

  it("no page carries a merge's conflict markers", () => {
    const pages = [
      "README.md",
      ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)
    ]
    const marked = pages.filter((page) => /^(<{7} |={7}$|>{7} )/m.test(fs.readFileSync(path.join(root, page), "utf8")))
    assert.deepStrictEqual(marked, [])
  })

  it("the README is under 200 lines and every page of docs/ at most 300", () => {
    const lines = (file: string) => fs.readFileSync(path.join(root, file), "utf8").split("\n").length - 1
    assert.isBelow(lines("README.md"), 200)
    for (const file of markdownFiles().filter((f) => f.startsWith("docs"))) {
      assert.isAtMost(lines(file), 300, file)
    }
  })
})
