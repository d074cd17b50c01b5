/**
 * Checks that every options type of the packages documents its fields where an editor's hover shows them: in
 * `packages/<name>/src`, every exported interface (or object type alias) whose name ends in `Options` or `Config`
 * gives each of its own fields a JSDoc comment, and each optional field a `@default` tag in it.
 *
 * The value of `@default` is what the field is when left out: a literal (`@default 10_000`, `@default "5 minutes"`),
 * or, for a field whose absence means something other than a value, a few words (`@default none: nothing is
 * mounted`). A field with no default at all says `@default undefined` and its prose says what leaving it out does.
 *
 * Run by `npm run lint`; `tsx tooling/src/options.ts` lists what is missing, one line per field, and exits 1 when
 * anything is.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "..", "..")

/** Every `.ts` file under `dir`, its `.d.ts` files left out. */
const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => path.join(dir, file))

const isOptionsName = (name: string) => /(Options|Config)$/.test(name)

const isExported = (node: ts.Node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)

/** The JSDoc comments attached to `member` (what a hover shows). */
const jsDocsOf = (member: ts.Node): ReadonlyArray<ts.JSDoc> =>
  (member as { jsDoc?: ReadonlyArray<ts.JSDoc> }).jsDoc ?? []

const hasDefault = (docs: ReadonlyArray<ts.JSDoc>) =>
  docs.some((doc) =>
    (doc.tags ?? []).some((tag) =>
      tag.tagName.text === "default" && ts.getTextOfJSDocComment(tag.comment)?.trim() !== undefined &&
      ts.getTextOfJSDocComment(tag.comment)!.trim() !== ""
    )
  )

const hasText = (docs: ReadonlyArray<ts.JSDoc>) =>
  docs.some((doc) => (ts.getTextOfJSDocComment(doc.comment)?.trim() ?? "") !== "")

/** What is missing in `file`: one line per field. */
export const problemsOf = (file: string): Array<string> => {
  const text = fs.readFileSync(file, "utf8")
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const out: Array<string> = []
  const check = (typeName: string, members: ts.NodeArray<ts.TypeElement>) => {
    for (const member of members) {
      if (!ts.isPropertySignature(member) && !ts.isMethodSignature(member)) continue
      const name = member.name.getText(source)
      const where = `${path.relative(root, file)}:${
        source.getLineAndCharacterOfPosition(member.getStart(source)).line + 1
      }`
      const docs = jsDocsOf(member)
      if (!hasText(docs)) out.push(`${where} ${typeName}.${name}: no JSDoc`)
      else if (member.questionToken !== undefined && !hasDefault(docs)) {
        out.push(`${where} ${typeName}.${name}: optional, no @default`)
      }
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && isExported(node) && isOptionsName(node.name.text)) {
      check(node.name.text, node.members)
    } else if (
      ts.isTypeAliasDeclaration(node) && isExported(node) && isOptionsName(node.name.text) &&
      ts.isTypeLiteralNode(node.type)
    ) {
      check(node.name.text, node.type.members)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return out
}

/** What is missing across `packages/<name>/src`. */
export const problems = (): Array<string> =>
  fs.readdirSync(path.join(root, "packages"))
    .map((name) => path.join(root, "packages", name, "src"))
    .filter((dir) => fs.existsSync(dir))
    .flatMap(sources)
    .flatMap(problemsOf)

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const found = problems()
  for (const line of found) console.error(line)
  if (found.length > 0) {
    console.error(
      `\n${found.length} field(s) of an options type without JSDoc or @default (see tooling/src/options.ts)`
    )
    process.exit(1)
  }
}
