import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { validateWire } from "@mrtr/test-support/wire"
import { Elicitation, ElicitationSchema, InvalidElicitationSchema } from "../src/index.ts"

const Titled = (value: string, title: string) => Schema.Literal(value).annotate({ title })

describe("ElicitationSchema", () => {
  it("generates the spec's flat requestedSchema for every supported field type", () => {
    const form = ElicitationSchema.makeUnsafe(Schema.Struct({
      name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(50)).annotate({ title: "Name" }),
      email: Schema.String.annotate({ format: "email" }),
      site: Schema.optionalKey(Schema.String.annotate({ format: "uri" })),
      born: Schema.String.annotate({ format: "date" }),
      at: Schema.optionalKey(Schema.String.annotate({ format: "date-time" })),
      age: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 150 })),
      ratio: Schema.Finite,
      plain: Schema.optionalKey(Schema.Number),
      subscribe: Schema.Boolean.annotate({ default: true }),
      size: Schema.Literals(["s", "m", "l"]),
      color: Schema.Union([Titled("r", "Red"), Titled("g", "Green")]),
      tags: Schema.Array(Schema.Literals(["a", "b", "c"])).check(Schema.isMinLength(1)),
      labels: Schema.optionalKey(Schema.Array(Schema.Union([Titled("x", "Ex"), Titled("y", "Why")]))),
      nickname: Schema.optionalKey(Schema.String).annotate({ default: "pal" })
    }))
    const rs = form.requestedSchema
    expect(rs.type).toBe("object")
    expect(rs.required).toEqual(["name", "email", "born", "age", "ratio", "subscribe", "size", "color", "tags"])
    expect(rs.properties.name).toEqual({ type: "string", minLength: 1, maxLength: 50, title: "Name" })
    expect(rs.properties.email).toEqual({ type: "string", format: "email" })
    expect(rs.properties.age).toEqual({ type: "integer", minimum: 0, maximum: 150 })
    expect(rs.properties.plain).toEqual({ type: "number" })
    expect(rs.properties.subscribe).toEqual({ type: "boolean", default: true })
    expect(rs.properties.size).toEqual({ type: "string", enum: ["s", "m", "l"] })
    expect(rs.properties.color).toEqual({ type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }] })
    expect(rs.properties.tags).toEqual({ type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 1 })
    expect(rs.properties.labels).toEqual({ type: "array", items: { anyOf: [{ const: "x", title: "Ex" }, { const: "y", title: "Why" }] } })
    expect(rs.properties.nickname).toEqual({ type: "string", default: "pal" })
    for (const [, property] of Object.entries(rs.properties)) validateWire("PrimitiveSchemaDefinition", property)
    validateWire("ElicitRequestFormParams", { mode: "form", message: "m", requestedSchema: rs })
  })

  const rejected: Array<[string, Schema.Codec<any, any, never, never>, string]> = [
    ["a non-struct", Schema.String, ""],
    ["a nested object", Schema.Struct({ address: Schema.Struct({ city: Schema.String }) }), "address"],
    ["a record", Schema.Record(Schema.String, Schema.String), ""],
    ["an array of strings", Schema.Struct({ xs: Schema.Array(Schema.String) }), "xs"],
    ["a union of types", Schema.Struct({ v: Schema.Union([Schema.String, Schema.Number]) }), "v"],
    ["an unsupported string format", Schema.Struct({ ip: Schema.String.annotate({ format: "ipv4" }) }), "ip"],
    ["a pattern", Schema.Struct({ code: Schema.String.check(Schema.isPattern(/^[A-Z]+$/)) }), "code"],
    ["an exclusive bound", Schema.Struct({ n: Schema.Finite.check(Schema.isGreaterThan(0)) }), "n"],
    ["a null field", Schema.Struct({ n: Schema.Null }), "n"],
    ["a tuple", Schema.Struct({ t: Schema.Tuple([Schema.String, Schema.String]) }), "t"]
  ]
  for (const [label, schema, path] of rejected) {
    it(`rejects ${label} when the form is defined`, () => {
      const result = ElicitationSchema.make(schema)
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(result.failure).toBeInstanceOf(InvalidElicitationSchema)
        expect(result.failure.path).toBe(path)
        expect(result.failure.message).toMatch(/Invalid elicitation schema/)
      }
      expect(() => Elicitation.formSchema(schema)).toThrow(InvalidElicitationSchema)
    })
  }
})

describe("ElicitationSchema: annotations that are not JSON", () => {
  it("a Date or bigint default, a function example or a symbol title neither break the form nor reach the requestedSchema", () => {
    const form = ElicitationSchema.makeUnsafe(Schema.Struct({
      at: Schema.String.annotate({ default: new Date(0) } as never),
      n: Schema.Number.annotate({ default: 10n, examples: [() => 1], title: Symbol("x") } as never)
    }))
    expect(form.requestedSchema).toEqual({
      type: "object",
      properties: { at: { type: "string" }, n: { type: "number" } },
      required: ["at", "n"]
    })
    validateWire("ElicitRequest", {
      method: "elicitation/create",
      params: { mode: "form", message: "?", requestedSchema: form.requestedSchema }
    })
  })
})

describe("ElicitationSchema.formatsHold", () => {
  const { requestedSchema } = ElicitationSchema.makeUnsafe(Schema.Struct({
    email: Schema.String.annotate({ format: "email" }),
    site: Schema.optionalKey(Schema.String.annotate({ format: "uri" })),
    born: Schema.String.annotate({ format: "date" }),
    at: Schema.optionalKey(Schema.String.annotate({ format: "date-time" })),
    name: Schema.String
  }))
  const good = { email: "ada@example.org", site: "https://example.org/x", born: "1815-12-10", at: "2026-08-01T09:30:00Z", name: "x y" }

  it("accepts values of the declared formats, and fields that are absent", () => {
    expect(ElicitationSchema.formatsHold(requestedSchema, good)).toBe(true)
    expect(ElicitationSchema.formatsHold(requestedSchema, { email: "a@b", born: "2024-02-29", at: "2026-08-01t23:59:60.5+02:00" })).toBe(true)
    expect(ElicitationSchema.formatsHold(requestedSchema, {})).toBe(true)
  })

  it("refuses values that break their format", () => {
    for (
      const bad of [
        { email: "<script>not an email" },
        { email: "two@@signs" },
        { site: "not a uri" },
        { site: "/relative/path" },
        { born: "yesterday" },
        { born: "2026-13-45" },
        { born: "2023-02-29" },
        { at: "2026-08-01 09:30" },
        { at: "2026-08-01T25:00:00Z" }
      ]
    ) {
      expect(ElicitationSchema.formatsHold(requestedSchema, { ...good, ...bad })).toBe(false)
    }
  })

})
