/**
 * The interaction page's HTML, and the reading of its submitted form into an
 * elicitation answer's `content`.
 *
 * Rendered from a `requestedSchema` (the flat subset of `Elicitation.form`):
 * labels (`title`, else the field name), descriptions, defaults, single and
 * multi-select enums, formats, bounds. No JavaScript, no third-party asset:
 * one inline stylesheet whose SHA-256 is the only source the page's
 * Content-Security-Policy allows. The form has `novalidate`, so that every
 * rule is checked (and explained) by the server the same way. Gotchas: every
 * text that comes from the schema, the message or the user is HTML-escaped;
 * plain string fields are password inputs whose values are never sent back.
 */
import type { ElicitationSchema } from "@mrtr/core"
import { UrlParams } from "effect/http"
import { createHash } from "node:crypto"

type Field = Readonly<Record<string, unknown>>
type RequestedSchema = ElicitationSchema.RequestedSchema

const CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { max-width: 34rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
header { border-bottom: 1px solid #8886; margin-bottom: 1rem; }
header p { margin: 0; font-size: .85rem; opacity: .75; }
h1 { font-size: 1.3rem; margin: .2rem 0 .6rem; }
.message { white-space: pre-wrap; }
label, legend { display: block; font-weight: 600; margin-top: 1rem; }
fieldset { border: 0; padding: 0; margin: 0; }
fieldset label { font-weight: 400; margin-top: .2rem; }
.hint { font-size: .85rem; opacity: .75; margin: 0; }
input[type=text], input[type=password], input[type=email], input[type=url], input[type=number], input[type=date], select {
  width: 100%; box-sizing: border-box; padding: .45rem; font: inherit; margin-top: .2rem; }
button { margin-top: 1.4rem; padding: .5rem 1.4rem; font: inherit; font-weight: 600; }
.error { border: 1px solid #c00; background: #c001; padding: .6rem .8rem; border-radius: .3rem; }
.done { border: 1px solid #080; background: #0801; padding: .6rem .8rem; border-radius: .3rem; }
`.trim()

/** The page's only style source, for its Content-Security-Policy. */
export const styleHash = `'sha256-${createHash("sha256").update(CSS).digest("base64")}'`

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/** A whole page: the server's name, a heading, and a body already escaped. */
export const page = (serverName: string, heading: string, body: string): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escape(heading)} · ${escape(serverName)}</title>
<style>${CSS}</style>
</head>
<body>
<header><p>${escape(serverName)}</p><h1>${escape(heading)}</h1></header>
${body}
</body>
</html>
`

/** A page with one paragraph of plain text (done, expired, not found...). */
export const notice = (serverName: string, heading: string, text: string, kind: "done" | "error"): string =>
  page(serverName, heading, `<p class="${kind}" role="${kind === "error" ? "alert" : "status"}">${escape(text)}</p>`)

const choicesOf = (field: Field): ReadonlyArray<{ readonly value: string; readonly label: string }> | undefined => {
  if (Array.isArray(field.oneOf)) {
    return field.oneOf.map((o: { const: string; title?: string }) => ({ value: o.const, label: o.title ?? o.const }))
  }
  if (Array.isArray(field.enum)) {
    const names = Array.isArray(field.enumNames) ? field.enumNames as ReadonlyArray<string> : undefined
    return (field.enum as ReadonlyArray<string>).map((value, i) => ({ value, label: names?.[i] ?? value }))
  }
  return undefined
}

const multiChoicesOf = (
  field: Field
): ReadonlyArray<{ readonly value: string; readonly label: string }> | undefined => {
  if (field.type !== "array") return undefined
  const items = field.items as Field | undefined
  if (items === undefined) return []
  return choicesOf(items.anyOf === undefined ? items : { oneOf: items.anyOf }) ?? []
}

const INPUT_TYPES: Readonly<Record<string, string>> = { email: "email", uri: "url", date: "date" }

const attribute = (name: string, value: unknown): string =>
  value === undefined || value === null || value === false
    ? ""
    : value === true
    ? ` ${name}`
    : ` ${name}="${escape(String(value))}"`

/** The values to show in the form: the user's last submission (minus secrets), else the fields' defaults. */
export type Shown = Readonly<Record<string, unknown>>

const fieldHtml = (name: string, field: Field, required: boolean, shown: Shown): string => {
  const id = `f-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`
  const label = escape(String(field.title ?? name))
  const hint = typeof field.description === "string"
    ? `<p class="hint" id="${id}-hint">${escape(field.description)}</p>`
    : ""
  const described = hint === "" ? "" : ` aria-describedby="${id}-hint"`
  const value = Object.hasOwn(shown, name) ? shown[name] : field.default
  const multi = multiChoicesOf(field)
  if (multi !== undefined) {
    const selected = new Set(Array.isArray(value) ? value.map(String) : [])
    const boxes = multi.map((c, i) =>
      `<label><input type="checkbox" name="${escape(name)}" id="${id}-${i}" value="${escape(c.value)}"${
        attribute("checked", selected.has(c.value))
      }> ${escape(c.label)}</label>`
    ).join("\n")
    return `<fieldset${described}><legend>${label}${required ? " *" : ""}</legend>${hint}\n${boxes}</fieldset>`
  }
  const choices = choicesOf(field)
  if (choices !== undefined) {
    const options = [
      required && value !== undefined ? "" : `<option value="">—</option>`,
      ...choices.map((c) =>
        `<option value="${escape(c.value)}"${attribute("selected", value === c.value)}>${escape(c.label)}</option>`
      )
    ].join("")
    return `<label for="${id}">${label}${required ? " *" : ""}</label>${hint}<select id="${id}" name="${
      escape(name)
    }"${described}>${options}</select>`
  }
  if (field.type === "boolean") {
    return `<label><input type="hidden" name="${escape(name)}" value="false"><input type="checkbox" id="${id}" name="${
      escape(name)
    }" value="true"${attribute("checked", value === true)}${described}> ${label}</label>${hint}`
  }
  const common = `id="${id}" name="${escape(name)}"${attribute("required", required)}${described}`
  if (field.type === "number" || field.type === "integer") {
    return `<label for="${id}">${label}${required ? " *" : ""}</label>${hint}<input type="number" ${common}${
      attribute("step", field.type === "integer" ? "1" : "any")
    }${attribute("min", field.minimum)}${attribute("max", field.maximum)}${attribute("value", value)}>`
  }
  const format = typeof field.format === "string" ? field.format : undefined
  const type = format === undefined ? "password" : INPUT_TYPES[format] ?? "text"
  return `<label for="${id}">${label}${required ? " *" : ""}</label>${hint}<input type="${type}" ${common}${
    attribute("minlength", field.minLength)
  }${attribute("maxlength", field.maxLength)}${
    attribute("value", type === "password" ? undefined : value)
  } autocomplete="off" spellcheck="false">`
}

/**
 * The form page: the server's name, the message, any refusal, the fields, the
 * CSRF token. The form has no `action`: it posts to the page's own URL as the
 * browser sees it (behind a proxy, the public one).
 */
export const formPage = (input: {
  readonly serverName: string
  readonly message: string
  readonly requestedSchema: RequestedSchema
  readonly csrfToken: string
  readonly shown: Shown
  readonly problem?: string | undefined
}): string => {
  const required = new Set(input.requestedSchema.required ?? [])
  const fields = Object.entries(input.requestedSchema.properties).map(([name, field]) =>
    fieldHtml(name, field as Field, required.has(name), input.shown)
  ).join("\n")
  const problem = input.problem === undefined
    ? ""
    : `<p class="error" role="alert">Please correct the form: ${escape(input.problem)}</p>\n`
  return page(
    input.serverName,
    "Information requested",
    `<p class="message">${escape(input.message)}</p>
${problem}<form method="post" novalidate>
<input type="hidden" name="csrf" value="${escape(input.csrfToken)}">
${fields}
<button type="submit">Submit</button>
</form>
<p class="hint">What you enter here goes to ${escape(input.serverName)} only, not to the app that sent you.</p>`
  )
}

/**
 * The submitted form as an answer's `content`: strings as typed (an empty
 * one is a missing field), numbers parsed (a value that does not parse is
 * kept as text, for the refusal to name), booleans from their checkbox,
 * multi-selects as arrays. Fields the form does not have are ignored.
 */
export const contentOf = (requestedSchema: RequestedSchema, params: UrlParams.UrlParams): Record<string, unknown> => {
  const content: Record<string, unknown> = Object.create(null)
  const all = (name: string) => UrlParams.getAll(params, name)
  for (const [name, raw] of Object.entries(requestedSchema.properties)) {
    const field = raw as Field
    const values = all(name)
    if (field.type === "array") {
      content[name] = values
      continue
    }
    if (field.type === "boolean") {
      content[name] = values.includes("true")
      continue
    }
    const value = values[0]
    if (value === undefined || value === "") continue
    if (field.type === "number" || field.type === "integer") {
      const number = value.trim() === "" ? Number.NaN : Number(value)
      content[name] = Number.isFinite(number) ? number : value
      continue
    }
    content[name] = value
  }
  return content
}

/** What the form shows again after a refusal: the submission, minus password fields. */
export const shownAfterRefusal = (
  requestedSchema: RequestedSchema,
  content: Readonly<Record<string, unknown>>
): Shown => {
  const shown: Record<string, unknown> = Object.create(null)
  for (const [name, raw] of Object.entries(requestedSchema.properties)) {
    const field = raw as Field
    const secret = field.type === "string" && field.format === undefined && choicesOf(field) === undefined
    if (!secret && Object.hasOwn(content, name)) shown[name] = content[name]
  }
  return shown
}
