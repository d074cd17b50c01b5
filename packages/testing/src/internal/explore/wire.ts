/**
 * The default wire validator of an exploration: ajv over the official JSON
 * Schemas that `@mrtr/testing` ships (`schemas/`: 2026-07-28, 2025-11-25,
 * the Tasks extension's draft), loaded and compiled on first use, one
 * validator per definition.
 *
 * Gotcha: the files are read from the package's own `schemas/` directory
 * (next to `src/` and `dist/`), so the package needs a file system (Node).
 */
import type { ValidateFunction } from "ajv"
import addFormatsModule from "ajv-formats"
import { Ajv2020 } from "ajv/dist/2020.js"
import * as fs from "node:fs"

/** Which schema a message is validated against: an era's, or the Tasks extension's. */
export type Era = "2026-07-28" | "2025-11-25" | "tasks"

const FILES: Record<Era, string> = {
  "2026-07-28": "schema-2026-07-28.json",
  "2025-11-25": "schema-2025-11-25.json",
  tasks: "schema-tasks-draft.json"
}

// ajv-formats ships CommonJS; under NodeNext its default import may be the module object.
type AddFormats = (ajv: Ajv2020) => unknown
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)

let ajv: Ajv2020 | undefined
const documents = new Map<Era, { readonly $defs: Record<string, unknown> }>()
const validators = new Map<string, ValidateFunction>()

const documentOf = (era: Era) => {
  let document = documents.get(era)
  if (document === undefined) {
    // From src/internal/explore/ or dist/internal/explore/: the package's schemas/.
    document = JSON.parse(fs.readFileSync(new URL(`../../../schemas/${FILES[era]}`, import.meta.url), "utf8")) as {
      readonly $defs: Record<string, unknown>
    }
    documents.set(era, document)
    if (ajv === undefined) {
      ajv = new Ajv2020({ allErrors: true, strict: false })
      addFormats(ajv)
    }
    ajv.addSchema(document, FILES[era])
  }
  return document
}

/**
 * Validates `value` against `$defs[defName]` of `era`'s official schema: ajv's
 * error text, or `undefined` when valid. A definition the schema lacks is an
 * error text too.
 */
export const validate = (defName: string, value: unknown, era: Era): string | undefined => {
  const key = `${era}#${defName}`
  let check = validators.get(key)
  if (check === undefined) {
    const document = documentOf(era)
    if (!Object.hasOwn(document.$defs, defName)) return `the ${era} schema has no definition "${defName}"`
    const compiled = ajv!.compile({ $ref: `${FILES[era]}#/$defs/${defName}` })
    validators.set(key, compiled)
    check = compiled
  }
  if (check(value)) return undefined
  return ajv!.errorsText(check.errors, { dataVar: defName, separator: "\n" })
}
