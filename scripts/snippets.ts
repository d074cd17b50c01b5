/**
 * The code in `README.md` and `docs/` comes from files that are typechecked and tested: a fenced block directly after
 * a marker `<!-- snippet: path/to/file.ts#region -->` must equal that region of the file (the lines between
 * `// #region name` and `// #endregion name`, without nested markers and lines ending `// #hide`, dedented), or the
 * whole file without `#region`.
 * Every TypeScript block must have a marker, or be marked `<!-- sketch -->` when it shows the shape of code with
 * elisions (`...`) rather than code to copy.
 *
 * `npm run snippets` rewrites the blocks from their files; `examples/docs.test.ts` fails when one differs, when a
 * TypeScript block has no marker, when a relative link points at nothing, or when a page of `docs/` is not linked
 * from `docs/README.md`.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** The repository's root. */
export const root = path.resolve(import.meta.dirname, "..")

/** The Markdown files whose snippets are checked: the README and every page under `docs/` but the generated `docs/api/`. */
export const markdownFiles = (): ReadonlyArray<string> => [
  "README.md",
  ...fs.readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
    // `docs/api/` is the generated API reference (`npm run docs`), not written pages.
    .filter((file) => file.endsWith(".md") && !file.startsWith(`api${path.sep}`))
    .map((file) => path.join("docs", file))
    .sort()
]

const markerPattern = /^<!-- snippet: ([^#\s]+)(?:#([\w-]+))? -->$/
/** Marks a block that shows the shape of code, not code to copy (pseudo-code with `...`): it is not compared. */
const sketchMarker = "<!-- sketch -->"

/** The code a marker names: a region of a file, or the whole file. */
export const extract = (file: string, region: string | undefined): string => {
  const text = fs.readFileSync(path.join(root, file), "utf8")
  if (region === undefined) return text.replace(/\n$/, "")
  const lines = text.split("\n")
  const start = lines.findIndex((line) => line.trim() === `// #region ${region}`)
  const end = lines.findIndex((line, i) => i > start && line.trim() === `// #endregion ${region}`)
  if (start < 0 || end < 0) throw new Error(`${file} has no region "${region}"`)
  const body = lines.slice(start + 1, end).filter((line) =>
    !/^\s*\/\/ #(end)?region\b/.test(line) && !/\/\/ #hide$/.test(line)
  )
  const indent = Math.min(...body.filter((line) => line.trim() !== "").map((line) => line.match(/^ */)![0].length))
  return body.map((line) => line.slice(indent)).join("\n")
}

/** One fenced block of a Markdown file, with the marker before it (if any). */
export interface Block {
  readonly file: string
  readonly line: number
  readonly lang: string
  readonly code: string
  readonly source?: { readonly file: string; readonly region: string | undefined } | undefined
  /** Preceded by `<!-- sketch -->`: the shape of code, with elisions; not compared with any file. */
  readonly sketch: boolean
  /** The block's offsets in the Markdown text (the code between the fences). */
  readonly start: number
  readonly end: number
}

/** Every fenced block of `file` (a path relative to the root). */
export const blocks = (file: string): ReadonlyArray<Block> => {
  const text = fs.readFileSync(path.join(root, file), "utf8")
  const result: Array<Block> = []
  const fence = /^(```+)(\S*)[^\n]*\n([\s\S]*?)^\1[ \t]*$/gm
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    const before = text.slice(0, match.index).replace(/\n$/, "")
    const previous = before.slice(before.lastIndexOf("\n") + 1)
    const marker = markerPattern.exec(previous.trim())
    const codeStart = match.index + match[0].indexOf("\n") + 1
    result.push({
      file,
      line: before.split("\n").length + 1,
      lang: match[2]!,
      code: match[3]!.replace(/\n$/, ""),
      source: marker === null ? undefined : { file: marker[1]!, region: marker[2] },
      sketch: previous.trim() === sketchMarker,
      start: codeStart,
      end: codeStart + match[3]!.length
    })
  }
  return result
}

/** What is wrong with the snippets of the README and `docs/`: one line per problem. */
export const problems = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const file of markdownFiles()) {
    for (const block of blocks(file)) {
      const where = `${block.file}:${block.line}`
      if (block.source === undefined) {
        if (["ts", "typescript", "tsx"].includes(block.lang) && !block.sketch) {
          found.push(`${where}: a TypeScript block without a snippet marker`)
        }
        continue
      }
      let expected: string
      try {
        expected = extract(block.source.file, block.source.region)
      } catch (error) {
        found.push(`${where}: ${String(error)}`)
        continue
      }
      if (block.code !== expected) {
        found.push(
          `${where}: differs from ${block.source.file}${
            block.source.region ? `#${block.source.region}` : ""
          } (npm run snippets)`
        )
      }
    }
  }
  return found
}

/** Rewrites every marked block from its source; returns the files changed. */
export const write = (): ReadonlyArray<string> => {
  const changed: Array<string> = []
  for (const file of markdownFiles()) {
    const original = fs.readFileSync(path.join(root, file), "utf8")
    let text = original
    for (const block of [...blocks(file)].reverse()) {
      if (block.source === undefined) continue
      text = text.slice(0, block.start) + extract(block.source.file, block.source.region) + "\n" + text.slice(block.end)
    }
    if (text !== original) {
      fs.writeFileSync(path.join(root, file), text)
      changed.push(file)
    }
  }
  return changed
}

/** Relative links of the README and `docs/` that point at no file, and pages of `docs/` its index does not link. */
export const brokenLinks = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  const linked = new Set<string>()
  for (const file of markdownFiles()) {
    const text = fs.readFileSync(path.join(root, file), "utf8").replace(/^```[\s\S]*?^```/gm, "")
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!
      if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue
      const resolved = path.normalize(path.join(path.dirname(file), target.split("#")[0]!))
      if (!fs.existsSync(path.join(root, resolved))) found.push(`${file}: the link ${target} points at nothing`)
      if (file === path.join("docs", "README.md")) linked.add(resolved)
    }
  }
  for (const file of markdownFiles()) {
    if (file.startsWith("docs") && file !== path.join("docs", "README.md") && !linked.has(file)) {
      found.push(`docs/README.md does not link ${file}`)
    }
  }
  return found
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const changed = write()
  console.log(changed.length === 0 ? "every snippet is up to date" : `rewrote ${changed.join(", ")}`)
  const left = [...problems(), ...brokenLinks()]
  for (const problem of left) console.error(problem)
  process.exitCode = left.length === 0 ? 0 : 1
}
