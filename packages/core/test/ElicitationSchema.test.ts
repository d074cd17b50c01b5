import { assert, describe, it } from "@effect/vitest"
import { validateWire } from "@mrtr/test-support/wire"
import { Result, Schema } from "effect"
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
    assert.strictEqual(rs.type, "object")
    assert.deepStrictEqual(rs.required, ["name", "email", "born", "age", "ratio", "subscribe", "size", "color", "tags"])
    assert.deepStrictEqual(rs.properties.name, { type: "string", minLength: 1, maxLength: 50, title: "Name" })
    assert.deepStrictEqual(rs.properties.email, { type: "string", format: "email" })
    assert.deepStrictEqual(rs.properties.age, { type: "integer", minimum: 0, maximum: 150 })
    assert.deepStrictEqual(rs.properties.plain, { type: "number" })
    assert.deepStrictEqual(rs.properties.subscribe, { type: "boolean", default: true })
    assert.deepStrictEqual(rs.properties.size, { type: "string", enum: ["s", "m", "l"] })
    assert.deepStrictEqual(rs.properties.color, {
      type: "string",
      oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }]
    })
    assert.deepStrictEqual(rs.properties.tags, {
      type: "array",
      items: { type: "string", enum: ["a", "b", "c"] },
      minItems: 1
    })
    assert.deepStrictEqual(rs.properties.labels, {
      type: "array",
      items: { anyOf: [{ const: "x", title: "Ex" }, { const: "y", title: "Why" }] }
    })
    assert.deepStrictEqual(rs.properties.nickname, { type: "string", default: "pal" })
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
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) {
        assert.instanceOf(result.failure, InvalidElicitationSchema)
        assert.strictEqual(result.failure.path, path)
        assert.match(result.failure.message, /Invalid elicitation schema/)
      }
      assert.throws(() => Elicitation.formSchema(schema), InvalidElicitationSchema)
    })
  }
})

describe("ElicitationSchema: annotations that are not JSON", () => {
  it("a Date or bigint default, a function example or a symbol title neither break the form nor reach the requestedSchema", () => {
    const form = ElicitationSchema.makeUnsafe(Schema.Struct({
      at: Schema.String.annotate({ default: new Date(0) } as never),
      n: Schema.Number.annotate({ default: 10n, examples: [() => 1], title: Symbol("x") } as never)
    }))
    assert.deepStrictEqual(form.requestedSchema, {
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
  const good = {
    email: "ada@example.org",
    site: "https://example.org/x",
    born: "1815-12-10",
    at: "2026-08-01T09:30:00Z",
    name: "x y"
  }

  it("accepts values of the declared formats, and fields that are absent", () => {
    assert.isTrue(ElicitationSchema.formatsHold(requestedSchema, good))
    assert.isTrue(ElicitationSchema.formatsHold(requestedSchema, {
      email: "a@b.c",
      born: "2024-02-29",
      at: "2026-08-01t23:59:60.5Z"
    }))
    assert.isTrue(ElicitationSchema.formatsHold(requestedSchema, {}))
  })

  it("accepts dates of the years 0000 to 0099 (no 19xx mapping) and the extreme offsets", () => {
    for (const born of ["0024-02-29", "0001-01-01", "0000-02-29", "0099-12-31"]) {
      assert.isTrue(ElicitationSchema.formatsHold(requestedSchema, { ...good, born }), born)
    }
    for (const at of ["0050-06-01T10:00:00Z", "0004-02-29T00:00:00+23:59", "2026-08-01T10:00:00-23:59"]) {
      assert.isTrue(ElicitationSchema.formatsHold(requestedSchema, { ...good, at }), at)
    }
    assert.isFalse(ElicitationSchema.formatsHold(requestedSchema, { ...good, born: "0023-02-29" }))
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
        { at: "2026-08-01T25:00:00Z" },
        // offsets out of range, and addresses with controls or bidi overrides
        { at: "2026-08-01T10:00:00+99:99" },
        { at: "2026-08-01T10:00:00+24:00" },
        { at: "2026-08-01T10:00:00+23:60" },
        { email: "ada\u0000@example.org" },
        { email: "ada\u202e@example.org" },
        { email: "ada@exa\u202emple.org" }
      ]
    ) {
      assert.isFalse(ElicitationSchema.formatsHold(requestedSchema, { ...good, ...bad }))
    }
  })
})

describe("ElicitationSchema: every check the decoder enforces is in the requestedSchema", () => {
  it("bounds of Schema.Number, a repeated length check and an integer check are written in", () => {
    const { requestedSchema, schema } = ElicitationSchema.makeUnsafe(Schema.Struct({
      n: Schema.Number.check(Schema.isBetween({ minimum: 1, maximum: 3 })),
      m: Schema.optionalKey(Schema.Number.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(9))),
      i: Schema.Number.check(Schema.isInt(), Schema.isBetween({ minimum: 2, maximum: 4 })),
      s: Schema.String.check(Schema.isMinLength(2), Schema.isMinLength(3), Schema.isMaxLength(8)),
      c: Schema.String.check(Schema.isBetweenCodePoints(1, 5)),
      tags: Schema.Array(Schema.Literals(["a", "b"])).check(Schema.isMaxLength(1))
    }))
    validateWire("ElicitRequestFormParams", { mode: "form", message: "m", requestedSchema })
    assert.deepStrictEqual(requestedSchema.properties.n, { type: "number", minimum: 1, maximum: 3 })
    assert.deepStrictEqual(requestedSchema.properties.m, { type: "number", minimum: 0, maximum: 9 })
    assert.containSubset(requestedSchema.properties.i, { type: "integer", minimum: 2, maximum: 4 })
    assert.deepStrictEqual(requestedSchema.properties.s, { type: "string", minLength: 3, maxLength: 8 })
    assert.deepStrictEqual(requestedSchema.properties.c, { type: "string", minLength: 1, maxLength: 5 })
    assert.containSubset(requestedSchema.properties.tags, { type: "array", maxItems: 1 })
    // what the form says is what the decoder enforces: 2 is out of n's bounds on both sides
    const decode = Schema.decodeUnknownOption(schema as Schema.Codec<any, any>)
    assert.strictEqual(decode({ n: 4, i: 3, s: "abc", c: "x", tags: [] })._tag, "None")
    assert.strictEqual(
      ElicitationSchema.refusal(requestedSchema, { n: 4, i: 3, s: "abc", c: "x", tags: [] }),
      "\"n\" must be at most 3."
    )
  })

  it("a bound the form cannot carry (exclusive) is refused when the form is defined", () => {
    const made = ElicitationSchema.make(Schema.Struct({
      x: Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1, exclusiveMaximum: true }))
    }))
    assert.isTrue(Result.isFailure(made))
    if (Result.isFailure(made)) assert.strictEqual(made.failure.path, "x")
  })
})

describe("ElicitationSchema.refusal says which field was refused and why", () => {
  const { requestedSchema } = ElicitationSchema.makeUnsafe(Schema.Struct({
    name: Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(5)),
    email: Schema.optionalKey(Schema.String.annotate({ format: "email" })),
    site: Schema.optionalKey(Schema.String.annotate({ format: "uri" })),
    born: Schema.optionalKey(Schema.String.annotate({ format: "date" })),
    at: Schema.optionalKey(Schema.String.annotate({ format: "date-time" })),
    age: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 120 }))),
    ratio: Schema.optionalKey(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))),
    size: Schema.optionalKey(Schema.Literals(["s", "m"])),
    color: Schema.optionalKey(Schema.Union([Titled("r", "Red"), Titled("g", "Green")])),
    tags: Schema.optionalKey(Schema.Array(Schema.Literals(["a", "b", "c"])).check(Schema.isBetweenLength(1, 2))),
    ok: Schema.optionalKey(Schema.Boolean)
  }))
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ["required", {}, "\"name\" is required."],
    ["minLength", { name: "A" }, "\"name\" must be at least 2 characters long."],
    ["maxLength", { name: "Alexandra" }, "\"name\" must be at most 5 characters long."],
    ["type (string)", { name: 42 }, "\"name\" must be text."],
    [
      "format email",
      { name: "Ada", email: "not-an-email" },
      "\"email\" must be an email address (such as name@example.com)."
    ],
    [
      "format uri",
      { name: "Ada", site: "not a uri" },
      "\"site\" must be an absolute URI (such as https://example.com/page)."
    ],
    ["format date", { name: "Ada", born: "2023-02-29" }, "\"born\" must be a calendar date written YYYY-MM-DD."],
    [
      "format date-time",
      { name: "Ada", at: "2026-08-01T10:00:00+24:00" },
      "\"at\" must be a date and time such as 2026-07-28T09:30:00Z."
    ],
    ["minimum", { name: "Ada", age: -1 }, "\"age\" must be at least 0."],
    ["maximum", { name: "Ada", ratio: 2 }, "\"ratio\" must be at most 1."],
    ["integer", { name: "Ada", age: 1.5 }, "\"age\" must be a whole number."],
    ["type (number)", { name: "Ada", age: "3" }, "\"age\" must be a number."],
    ["enum", { name: "Ada", size: "xl" }, "\"size\" must be one of: s, m."],
    ["titled enum", { name: "Ada", color: "b" }, "\"color\" must be one of: r, g."],
    ["multi-select choices", { name: "Ada", tags: ["z"] }, "\"tags\" may only hold choices among: a, b, c."],
    ["multi-select minItems", { name: "Ada", tags: [] }, "\"tags\" needs at least 1 choice."],
    ["multi-select maxItems", { name: "Ada", tags: ["a", "b", "c"] }, "\"tags\" allows at most 2 choices."],
    ["type (boolean)", { name: "Ada", ok: "yes" }, "\"ok\" must be yes or no (true or false)."],
    ["lone surrogate", { name: "A\ud800B" }, "\"name\" holds text that is not valid Unicode."],
    // 3 code points, 6 UTF-16 code units: the decoder (isMaxLength) counts units, and the reason says so
    [
      "maxLength, outside the BMP",
      { name: "😀😀😀" },
      "\"name\" must be at most 5 characters long (counted in UTF-16 code units: some characters count as 2)."
    ],
    ["two fields", { name: "A", age: 200 }, "\"name\" must be at least 2 characters long; \"age\" must be at most 120."]
  ]
  for (const [kind, content, reason] of cases) {
    it(kind, () => assert.strictEqual(ElicitationSchema.refusal(requestedSchema, content), reason))
  }
  it("an answer that fits has no reason", () =>
    assert.isUndefined(
      ElicitationSchema.refusal(requestedSchema, { name: "Ada", email: "ada@example.org", tags: ["a"] })
    ))
})
