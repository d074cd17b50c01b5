/**
 * Test helper: validates values against the official MCP 2026-07-28 JSON
 * Schema (`packages/test-support/spec/schema-2026-07-28.json`, JSON Schema 2020-12)
 * with ajv, or against the 2025-11-25 one or the Tasks extension's draft
 * schema (`schema-tasks-draft.json`, {@link validateTaskWire}). Part of the private `@mrtr/test-support` workspace package (never
 * published); tests of every package import it as `@mrtr/test-support/wire`.
 * The schemas are copies kept in this repository (`spec/README.md` says where
 * they come from), so no test reads anything outside the checkout.
 *
 * `defName` is a key of the schema's `$defs` (e.g. `"CallToolResult"`,
 * `"JSONRPCResultResponse"`, `"InputRequiredResult"`).
 *
 * @since 0.1.0
 */
import type { ValidateFunction } from "ajv"
import addFormatsModule from "ajv-formats"
import Ajv2020Module from "ajv/dist/2020.js"
import * as fs from "node:fs"

/** The `$id` under which the 2026-07-28 schema is registered. */
export const SCHEMA_ID = "schema-2026-07-28.json"

/** The `$id` under which the 2025-11-25 (legacy) schema is registered. */
export const LEGACY_SCHEMA_ID = "schema-2025-11-25.json"

/** The `$id` under which the Tasks extension's draft schema (SEP-2663, ext-tasks) is registered. */
export const TASKS_SCHEMA_ID = "schema-tasks-draft.json"

const load = (file: string): { readonly $defs: Record<string, Record<string, unknown>> } =>
  JSON.parse(fs.readFileSync(new URL(`./spec/${file}`, import.meta.url), "utf8"))

/** The parsed 2026-07-28 JSON Schema document. */
export const schemaJson = load(SCHEMA_ID)

/** The parsed 2025-11-25 JSON Schema document. */
export const legacySchemaJson = load(LEGACY_SCHEMA_ID)

/** The parsed Tasks extension schema document (`CreateTaskResult`, `GetTaskResult`, `UpdateTaskRequest`...). */
export const tasksSchemaJson = load(TASKS_SCHEMA_ID)

const documents: Record<string, { readonly $defs: Record<string, Record<string, unknown>> }> = {
  [SCHEMA_ID]: schemaJson,
  [LEGACY_SCHEMA_ID]: legacySchemaJson,
  [TASKS_SCHEMA_ID]: tasksSchemaJson
}

// ajv ships CommonJS; under NodeNext the default import may be the module object.
type AjvCtor = typeof Ajv2020Module.default
const Ajv2020: AjvCtor = (Ajv2020Module as unknown as { default?: AjvCtor }).default ??
  (Ajv2020Module as unknown as AjvCtor)
type AddFormats = typeof addFormatsModule.default
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats)

const ajv = new Ajv2020({ allErrors: true, strict: false })
addFormats(ajv)
ajv.addSchema(schemaJson, SCHEMA_ID)
ajv.addSchema(legacySchemaJson, LEGACY_SCHEMA_ID)
ajv.addSchema(tasksSchemaJson, TASKS_SCHEMA_ID)

const validators = new Map<string, ValidateFunction>()

const validatorFor = (defName: string, schemaId: string): ValidateFunction => {
  const key = `${schemaId}#${defName}`
  let validate = validators.get(key)
  if (validate === undefined) {
    const doc = documents[schemaId]
    if (doc === undefined) throw new Error(`Unknown schema '${schemaId}'`)
    if (!(defName in doc.$defs)) throw new Error(`Unknown $defs entry '${defName}' in ${schemaId}`)
    validate = ajv.compile({ $ref: `${schemaId}#/$defs/${defName}` })
    validators.set(key, validate)
  }
  return validate
}

/**
 * Validates `value` against `$defs[defName]` of the 2026-07-28 schema (or of
 * `schemaId`). Returns ajv's error text, or `undefined` when valid.
 */
export const wireErrors = (defName: string, value: unknown, schemaId: string = SCHEMA_ID): string | undefined => {
  const validate = validatorFor(defName, schemaId)
  if (validate(value)) return undefined
  return ajv.errorsText(validate.errors, { dataVar: defName, separator: "\n" })
}

/**
 * Throws an `Error` carrying ajv's error text unless `value` is valid against
 * `$defs[defName]` of the 2026-07-28 schema (or of `schemaId`).
 */
export const validateWire = (defName: string, value: unknown, schemaId: string = SCHEMA_ID): void => {
  const errors = wireErrors(defName, value, schemaId)
  if (errors !== undefined) {
    throw new Error(`Not a valid ${defName} (${schemaId}):\n${errors}\nvalue: ${JSON.stringify(value)}`)
  }
}

/** Names of all `$defs` of the 2026-07-28 schema. */
export const defNames: ReadonlyArray<string> = Object.keys(schemaJson.$defs)

/**
 * Throws unless `value` is valid against `$defs[defName]` of the Tasks
 * extension's schema (`spec/schema-tasks-draft.json`), e.g.
 * `"CreateTaskResult"`, `"GetTaskResult"`, `"UpdateTaskResult"`,
 * `"CancelTaskResult"`, `"UpdateTaskRequest"`.
 */
export const validateTaskWire = (defName: string, value: unknown): void => validateWire(defName, value, TASKS_SCHEMA_ID)
