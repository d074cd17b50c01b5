/**
 * What every test suite of the repository keeps to, checked on the files themselves: no test writes the 2026-07-28
 * request headers by hand (they come from `@mrtr/test-support/http`, which builds them with `@mrtr/protocol`'s
 * `requestHeaders`), tests are named by the behaviour they check rather than by the issue that asked for them, and a
 * package's tests import nothing from `examples/`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { root } from "../scripts/snippets.ts"

/** Every `.ts` file under `dir` (relative to the root), `node_modules` left out. */
const filesUnder = (dir: string): Array<string> =>
  fs.existsSync(path.join(root, dir))
    ? fs.readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.split(path.sep).includes("node_modules"))
      .map((file) => path.join(dir, file).split(path.sep).join("/"))
    : []

/** The test files and their helpers: `packages/<name>/test/**` and every `*.test.ts` of `examples/`. */
const testFiles = (): Array<string> => [
  ...fs.readdirSync(path.join(root, "packages")).flatMap((name) => filesUnder(`packages/${name}/test`)),
  ...filesUnder("examples").filter((file) => file.endsWith(".test.ts"))
]

const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")

/**
 * A header of the 2026-07-28 era typed by hand: an object key `mcp-method` or `mcp-name` (any case), or
 * `MCP-Protocol-Version` given the value `2026-07-28` (an object key, or a raw HTTP header line).
 */
const HAND_WRITTEN_HEADER = new RegExp(
  [
    String.raw`["'\x60]mcp-(method|name)["'\x60]\s*:`,
    String.raw`["'\x60]mcp-protocol-version["'\x60]\s*:\s*["'\x60]2026-07-28`,
    String.raw`mcp-protocol-version:\s*2026-07-28`
  ].join("|"),
  "i"
)

/** The files whose point is a malformed or mismatched header: they write that one header themselves. */
const MALFORMED_HEADER_TESTS: Record<string, string> = {
  "packages/protocol/test/headers.test.ts": "the tests of requestHeaders and validateRequestHeaders themselves",
  "packages/server/test/McpServer.test.ts": "each header replaced by a mismatching value, one at a time",
  "packages/server/test/HttpServer.e2e.test.ts": "an Mcp-Name naming another tool is -32020",
  "packages/server/test/HttpCors.test.ts": "an Mcp-Name mismatch answered with CORS headers",
  "packages/server/test/Tasks.e2e.test.ts": "an Mcp-Name that is not the taskId is -32020"
}

/** A test or a comment that names the issue, the finding or the pass that asked for it, instead of what it checks. */
const NAMED_BY_ISSUE = /\b(issue|finding) #?\d+|break[-]it/i

/** An import of a module of `examples/` (static or dynamic). */
const IMPORTS_EXAMPLES = /(\bfrom\s+|\bimport\s*\(\s*)["'\x60][^"'\x60]*\bexamples\//

describe("test conventions", () => {
  it("no test writes the 2026-07-28 headers by hand (mcpHeaders and mcpPost of @mrtr/test-support/http build them)", () => {
    const files = testFiles()
    assert.isAbove(files.length, 100)
    const offenders = files.filter((file) => !(file in MALFORMED_HEADER_TESTS) && HAND_WRITTEN_HEADER.test(read(file)))
    assert.deepStrictEqual(offenders, [])
    // the allow-list names only files that exist and still need it
    const stale = Object.keys(MALFORMED_HEADER_TESTS).filter((file) =>
      !fs.existsSync(path.join(root, file)) || !HAND_WRITTEN_HEADER.test(read(file))
    )
    assert.deepStrictEqual(stale, [])
  })

  it("tests are named by the behaviour they check, not by the issue that asked for them", () => {
    assert.deepStrictEqual(testFiles().filter((file) => NAMED_BY_ISSUE.test(read(file))), [])
  })

  it("a package's tests import nothing from examples/ (their fixtures are in @mrtr/test-support)", () => {
    const packageTests = testFiles().filter((file) => file.startsWith("packages/"))
    assert.deepStrictEqual(packageTests.filter((file) => IMPORTS_EXAMPLES.test(read(file))), [])
  })
})
