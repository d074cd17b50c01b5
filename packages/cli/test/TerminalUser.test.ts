/**
 * The terminal user: how a form's `requestedSchema` becomes prompts (which
 * prompt per field type, defaults pre-filled, required fields enforced,
 * optional fields skippable) and the content they produce, driven by a
 * scripted `Terminal` (key presses in, rendered frames recorded). Also the
 * form / URL / sampling handlers around them.
 * Source: MCP 2026-07-28, client/elicitation (requested schema), client/sampling.
 */
import { assert, describe, it } from "@effect/vitest"
import { ElicitationHandler, McpClient, MemoryTransport, SamplingHandler } from "@mrtr/client"
import { Elicitation, RequestState } from "@mrtr/core"
import type { PrimitiveSchemaDefinition } from "@mrtr/protocol/Schema"
import { McpServer, Tool } from "@mrtr/server"
import { TripDetails } from "@mrtr/test-support/travel"
import { validateWire } from "@mrtr/test-support/wire"
import { Effect, Fiber, Layer, Option, Result, Schema } from "effect"
import type { Prompt } from "effect/cli"
import { TestClock } from "effect/testing"
import * as Cli from "../src/Cli.ts"
import { clean } from "../src/Report.ts"
import * as TerminalUser from "../src/TerminalUser.ts"
import { backspace, char, down, enter, escape, key, scripted, space, type, up } from "./terminal.ts"

const context = { key: "details", method: "tools/call", target: "plan_trip", round: 1 }

/** Runs a prompt (or an effect needing the prompt environment) against scripted keys. */
const drive = <A, E>(
  effect: Effect.Effect<A, E, Prompt.Environment>,
  keys: Parameters<typeof scripted>[0]
) => {
  const terminal = scripted(keys)
  return effect.pipe(
    Effect.provide(terminal.layer),
    Effect.map((value) => ({ value, output: terminal.output(), remaining: terminal.remaining() }))
  )
}

const field = (
  name: string,
  schema: PrimitiveSchemaDefinition,
  required: boolean,
  keys: Parameters<typeof scripted>[0]
) => drive(TerminalUser.fieldPrompt(name, schema, required), keys)

describe("requestedSchema → prompt", () => {
  it("picks a prompt kind per field type", () => {
    const cases: ReadonlyArray<readonly [PrimitiveSchemaDefinition, TerminalUser.FieldKind]> = [
      [{ type: "string" }, "text"],
      [{ type: "string", format: "email" }, "email"],
      [{ type: "string", format: "uri" }, "uri"],
      [{ type: "string", format: "date" }, "date"],
      [{ type: "string", format: "date-time" }, "date-time"],
      [{ type: "integer", minimum: 1 }, "integer"],
      [{ type: "number" }, "number"],
      [{ type: "boolean" }, "boolean"],
      [{ type: "string", enum: ["a", "b"] }, "select"],
      [{ type: "string", oneOf: [{ const: "a", title: "A" }] }, "select"],
      [{ type: "string", enum: ["a"], enumNames: ["A"] }, "select"],
      [{ type: "array", items: { type: "string", enum: ["a", "b"] } }, "multi-select"],
      [{ type: "array", items: { anyOf: [{ const: "a", title: "A" }] } }, "multi-select"]
    ]
    for (const [schema, kind] of cases) assert.strictEqual(TerminalUser.fieldKind(schema), kind, JSON.stringify(schema))
  })

  it("labels carry the title, description and hints", () => {
    assert.strictEqual(
      TerminalUser.fieldLabel("n", { type: "integer", title: "Passengers", minimum: 1, maximum: 8 }, true),
      "Passengers (1–8, integer)"
    )
    assert.strictEqual(
      TerminalUser.fieldLabel("mail", { type: "string", format: "email", description: "for the tickets" }, false),
      "mail — for the tickets (email, optional)"
    )
    assert.strictEqual(
      TerminalUser.fieldLabel("x", { type: "array", minItems: 1, items: { type: "string", enum: ["a"] } }, true),
      "x (pick at least 1)"
    )
    assert.strictEqual(
      TerminalUser.fieldLabel("departure", { type: "string", format: "date", title: "Departure" }, true),
      "Departure (YYYY-MM-DD)"
    )
  })

  it("titled choices show titles and send values (oneOf, anyOf, legacy enumNames)", () => {
    assert.deepStrictEqual(
      TerminalUser.choicesOf({ type: "string", oneOf: [{ const: "light", title: "Carry-on only" }] }),
      [
        { title: "Carry-on only", value: "light" }
      ]
    )
    assert.deepStrictEqual(
      TerminalUser.choicesOf({ type: "array", items: { anyOf: [{ const: "w", title: "Wi-Fi" }] } }),
      [{ title: "Wi-Fi", value: "w" }]
    )
    assert.deepStrictEqual(TerminalUser.choicesOf({ type: "string", enum: ["a", "b"], enumNames: ["Ay"] }), [
      { title: "Ay", value: "a" },
      { title: "b", value: "b" }
    ])
  })

  it.effect("text: typed; a default is pre-filled and Enter keeps it", () =>
    Effect.gen(function*() {
      const typed = yield* field("name", { type: "string", title: "Your name" }, true, [type("Ada"), enter])
      assert.deepStrictEqual(typed.value, Option.some("Ada"))
      assert.include(typed.output, "Your name")
      const kept = yield* field("city", { type: "string", default: "Paris" }, true, [enter])
      assert.deepStrictEqual(kept.value, Option.some("Paris"))
      const edited = yield* field("city", { type: "string", default: "Paris" }, true, [
        backspace,
        backspace,
        type("ma"),
        enter
      ])
      assert.deepStrictEqual(edited.value, Option.some("Parma"))
    }))

  it.effect("text: a required field refuses an empty answer; an optional one is skipped by it", () =>
    Effect.gen(function*() {
      const required = yield* field("name", { type: "string" }, true, [enter, type("Bo"), enter])
      assert.deepStrictEqual(required.value, Option.some("Bo"))
      assert.include(required.output, "Required")
      const optional = yield* field("nick", { type: "string" }, false, [enter])
      assert.deepStrictEqual(optional.value, Option.none())
      assert.include(optional.output, "optional")
    }))

  it.effect("text: minLength / maxLength, email and uri formats are checked before submitting", () =>
    Effect.gen(function*() {
      const short = yield* field("code", { type: "string", minLength: 3, maxLength: 4 }, true, [
        type("ab"),
        enter,
        type("cde"),
        enter,
        backspace,
        enter
      ])
      assert.deepStrictEqual(short.value, Option.some("abcd"))
      assert.include(short.output, "At least 3 characters")
      assert.include(short.output, "At most 4 characters")
      assert.notInclude(short.output, "UTF-16")
      const email = yield* field("email", { type: "string", format: "email" }, true, [
        type("ada@"),
        enter,
        type("x.org"),
        enter
      ])
      assert.deepStrictEqual(email.value, Option.some("ada@x.org"))
      assert.include(email.output, "Expected an email address")
      const uri = yield* field("site", { type: "string", format: "uri" }, true, [
        type("nope"),
        enter,
        key("u", { ctrl: true }),
        type("https://x.org/"),
        enter
      ])
      assert.deepStrictEqual(uri.value, Option.some("https://x.org/"))
      assert.include(uri.output, "Expected a URI")
    }))

  it.effect("text: lengths count UTF-16 code units, as the server's check does, and say so for characters outside the BMP", () =>
    Effect.gen(function*() {
      // "😀😀😀" is 3 code points but 6 UTF-16 code units: the server's isMaxLength(5) refuses it
      const emoji = yield* field("tag", { type: "string", maxLength: 5 }, true, [
        type("😀😀😀"),
        enter,
        key("u", { ctrl: true }),
        type("😀😀"),
        enter
      ])
      assert.deepStrictEqual(emoji.value, Option.some("😀😀"))
      assert.include(emoji.output, "At most 5 characters (UTF-16 code units: some characters count as 2)")
      const short = yield* field("tag", { type: "string", minLength: 3 }, true, [type("😀"), enter, type("a"), enter])
      assert.deepStrictEqual(short.value, Option.some("😀a"))
      assert.include(short.output, "At least 3 characters (UTF-16 code units: some characters count as 2)")
    }))

  it.effect("integer: bounds enforced, default pre-filled, arrows step", () =>
    Effect.gen(function*() {
      const bounded = yield* field("n", { type: "integer", minimum: 1, maximum: 8 }, true, [
        char("9"),
        enter,
        backspace,
        char("2"),
        enter
      ])
      assert.deepStrictEqual(bounded.value, Option.some(2))
      assert.include(bounded.output, "9 must be less than or equal to 8")
      const fallback = yield* field("n", { type: "integer", default: 3 }, true, [enter])
      assert.deepStrictEqual(fallback.value, Option.some(3))
    }))

  it.effect("integer / number: what was typed is sent or refused at the prompt, never mangled", () =>
    Effect.gen(function*() {
      // `2.5` in an integer field used to become 25 (the `.` dropped)
      const fraction = yield* field("n", { type: "integer" }, true, [
        type("2.5"),
        enter,
        key("u", { ctrl: true }),
        type("3"),
        enter
      ])
      assert.deepStrictEqual(fraction.value, Option.some(3))
      assert.include(fraction.output, "Expected a whole number (integer)")
      assert.notInclude(fraction.output, "25")
      const exponent = yield* field("n", { type: "integer" }, true, [
        type("1e3"),
        enter,
        key("u", { ctrl: true }),
        type("-4"),
        enter
      ])
      assert.deepStrictEqual(exponent.value, Option.some(-4))
      assert.include(exponent.output, "Expected a whole number (integer)")
      const letters = yield* field("n", { type: "integer" }, true, [
        type("12abc"),
        enter,
        key("u", { ctrl: true }),
        type("12"),
        enter
      ])
      assert.deepStrictEqual(letters.value, Option.some(12))
      assert.include(letters.output, "Expected an integer")
      // a number keeps every digit typed (no rounding to a precision)
      const precise = yield* field("x", { type: "number", maximum: 10 }, true, [type("0.123456789"), enter])
      assert.deepStrictEqual(precise.value, Option.some(0.123456789))
      const bounded = yield* field("x", { type: "number", maximum: 10 }, true, [
        type("1e2"),
        enter,
        key("u", { ctrl: true }),
        type("2.5"),
        enter
      ])
      assert.deepStrictEqual(bounded.value, Option.some(2.5))
      assert.include(bounded.output, "100 must be less than or equal to 10")
    }))

  it.effect("number: decimals, bounds; optional without default asks 'Set …?' first", () =>
    Effect.gen(function*() {
      const price = yield* field("price", { type: "number", minimum: 0 }, true, [type("12.75"), enter])
      assert.deepStrictEqual(price.value, Option.some(12.75))
      const skipped = yield* field("tip", { type: "number", title: "Tip" }, false, [char("n")])
      assert.deepStrictEqual(skipped.value, Option.none())
      assert.include(skipped.output, "Set Tip?")
      const set = yield* field("tip", { type: "number", title: "Tip" }, false, [char("y"), type("1.5"), enter])
      assert.deepStrictEqual(set.value, Option.some(1.5))
    }))

  it.effect("boolean: a confirm with the default pre-selected; optional without default offers (skip)", () =>
    Effect.gen(function*() {
      const yes = yield* field("first", { type: "boolean", title: "First class?" }, true, [char("y")])
      assert.deepStrictEqual(yes.value, Option.some(true))
      assert.include(yes.output, "First class?")
      const byDefault = yield* field("first", { type: "boolean", default: true }, true, [enter])
      assert.deepStrictEqual(byDefault.value, Option.some(true))
      const skipped = yield* field("pet", { type: "boolean" }, false, [enter])
      assert.deepStrictEqual(skipped.value, Option.none())
      const no = yield* field("pet", { type: "boolean" }, false, [down, down, enter])
      assert.deepStrictEqual(no.value, Option.some(false))
    }))

  it.effect("single select: untitled enum with its default pre-selected", () =>
    Effect.gen(function*() {
      const seat = yield* field("seat", { type: "string", enum: ["window", "aisle", "any"], default: "any" }, true, [
        enter
      ])
      assert.deepStrictEqual(seat.value, Option.some("any"))
      const moved = yield* field("seat", { type: "string", enum: ["window", "aisle", "any"], default: "any" }, true, [
        up,
        enter
      ])
      assert.deepStrictEqual(moved.value, Option.some("aisle"))
    }))

  it.effect("single select: titled options show the title, send the const; optional ones start at (skip)", () =>
    Effect.gen(function*() {
      const schema: PrimitiveSchemaDefinition = {
        type: "string",
        oneOf: [{ const: "light", title: "Carry-on only" }, { const: "comfort", title: "Comfort first" }]
      }
      const picked = yield* field("style", schema, true, [down, enter])
      assert.deepStrictEqual(picked.value, Option.some("comfort"))
      assert.include(picked.output, "Carry-on only")
      assert.include(picked.output, "Comfort first")
      const skipped = yield* field("style", schema, false, [enter])
      assert.deepStrictEqual(skipped.value, Option.none())
      assert.include(skipped.output, "(skip)")
      const legacy = yield* field("size", { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"] }, true, [
        enter
      ])
      assert.deepStrictEqual(legacy.value, Option.some("s"))
      assert.include(legacy.output, "Small")
    }))

  it.effect("multi select: space ticks, defaults pre-ticked, minItems / maxItems enforced, none = skipped when optional", () =>
    Effect.gen(function*() {
      const items = { type: "string" as const, enum: ["bike", "pet", "wifi"] }
      // the list starts with two meta options (Select All, Inverse Selection)
      const ticked = yield* field("extras", { type: "array", items }, false, [
        down,
        down,
        space,
        down,
        down,
        space,
        enter
      ])
      assert.deepStrictEqual(ticked.value, Option.some(["bike", "wifi"]))
      const none = yield* field("extras", { type: "array", items }, false, [enter])
      assert.deepStrictEqual(none.value, Option.none())
      const defaults = yield* field("extras", { type: "array", items, default: ["pet"] }, true, [enter])
      assert.deepStrictEqual(defaults.value, Option.some(["pet"]))
      const atLeast = yield* field("extras", { type: "array", items, minItems: 1 }, true, [
        enter,
        down,
        down,
        space,
        enter
      ])
      assert.deepStrictEqual(atLeast.value, Option.some(["bike"]))
      assert.include(atLeast.output, "At least 1 are required")
      const titled = yield* field(
        "extras",
        {
          type: "array",
          items: { anyOf: [{ const: "w", title: "Wi-Fi" }, { const: "m", title: "Meal" }] },
          maxItems: 1
        },
        true,
        [down, down, space, down, space, enter, space, enter]
      )
      assert.deepStrictEqual(titled.value, Option.some(["w"]))
      assert.include(titled.output, "At most 1 choices are allowed")
    }))

  it.effect("date: YYYY-MM-DD, the default pre-set, parts typed; date-time gives an ISO instant", () =>
    Effect.gen(function*() {
      const kept = yield* field("date", { type: "string", format: "date", default: "2026-08-01" }, true, [enter])
      assert.deepStrictEqual(kept.value, Option.some("2026-08-01"))
      const typed = yield* field("date", { type: "string", format: "date", default: "2026-08-01" }, true, [
        key("u", { ctrl: true }),
        type("2027-03-15"),
        enter
      ])
      assert.deepStrictEqual(typed.value, Option.some("2027-03-15"))
      const instant = yield* field(
        "at",
        { type: "string", format: "date-time", default: "2026-08-01T10:30:00.000Z" },
        true,
        [enter]
      )
      assert.deepStrictEqual(instant.value, Option.some("2026-08-01T10:30:00.000Z"))
      const skipped = yield* field("date", { type: "string", format: "date" }, false, [char("n")])
      assert.deepStrictEqual(skipped.value, Option.none())
    }))

  it.effect("date: impossible days are refused at the prompt, not rolled over; years 0000–9999 round-trip", () =>
    Effect.gen(function*() {
      const clear = key("u", { ctrl: true })
      const february = yield* field("date", { type: "string", format: "date" }, true, [
        clear,
        type("2027-02-30"),
        enter,
        clear,
        type("2027-02-28"),
        enter
      ])
      assert.deepStrictEqual(february.value, Option.some("2027-02-28"))
      assert.include(february.output, "There is no day 2027-02-30 in the calendar")
      assert.notInclude(february.output, "2027-03-02")
      const slashes = yield* field("date", { type: "string", format: "date" }, true, [
        clear,
        type("2027/02/03"),
        enter,
        clear,
        type("2027-02-03"),
        enter
      ])
      assert.deepStrictEqual(slashes.value, Option.some("2027-02-03"))
      assert.include(slashes.output, "Expected a date written YYYY-MM-DD")
      // a default in the years 0-99 is shown and sent as it is (not as 19xx)
      const ancient = yield* field("date", { type: "string", format: "date", default: "0050-06-15" }, true, [enter])
      assert.deepStrictEqual(ancient.value, Option.some("0050-06-15"))
      assert.include(ancient.output, "0050-06-15")
      assert.notInclude(ancient.output, "1950")
      assert.strictEqual(TerminalUser.formatDate(new Date(2026, 7, 1)), "2026-08-01")
      const year5 = new Date(2026, 0, 2)
      year5.setFullYear(5)
      assert.strictEqual(TerminalUser.formatDate(year5), "0005-01-02")
    }))

  it.effect("date-time: the local wall time typed is sent with its offset, every year 0000–9999", () =>
    Effect.gen(function*() {
      const clear = key("u", { ctrl: true })
      const offset = (year: number, month: number, day: number, hours: number, minutes: number) => {
        const at = new Date(0)
        at.setFullYear(year, month - 1, day)
        at.setHours(hours, minutes, 0, 0)
        const m = -Math.round(at.getTimezoneOffset())
        const abs = Math.abs(m)
        return m === 0
          ? "Z"
          : `${m < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`
      }
      const late = yield* field("at", { type: "string", format: "date-time" }, true, [
        clear,
        type("9999-12-31 23:30"),
        enter
      ])
      assert.deepStrictEqual(late.value, Option.some(`9999-12-31T23:30:00${offset(9999, 12, 31, 23, 30)}`))
      const early = yield* field("at", { type: "string", format: "date-time" }, true, [
        clear,
        type("0050-06-15 08:05"),
        enter
      ])
      assert.deepStrictEqual(early.value, Option.some(`0050-06-15T08:05:00${offset(50, 6, 15, 8, 5)}`))
      const impossible = yield* field("at", { type: "string", format: "date-time" }, true, [
        clear,
        type("2027-02-30 10:00"),
        enter,
        clear,
        type("2027-02-01 24:00"),
        enter,
        clear,
        type("2027-02-01T10:00:00Z"),
        enter
      ])
      assert.deepStrictEqual(impossible.value, Option.some("2027-02-01T10:00:00Z"))
      assert.include(impossible.output, "There is no day 2027-02-30 in the calendar")
      assert.include(impossible.output, "There is no time 24:00 in a day")
    }))

  it.effect("a whole form: the demo's trip details, in field order, skipped optional fields left out", () =>
    Effect.gen(function*() {
      const schema = TripDetails.requestedSchema as TerminalUser.RequestedSchema
      const { output, value } = yield* drive(TerminalUser.formPrompt(schema), [
        type("Ada"),
        enter, // traveller
        type("ada@example.com"),
        enter, // email
        enter, // date: today, pre-set
        char("2"),
        enter, // passengers
        enter, // firstClass: default false
        enter, // seat: default "any"
        enter // extras: optional, nothing ticked
      ])
      assert.deepStrictEqual(Object.keys(value), ["traveller", "email", "date", "passengers", "firstClass", "seat"])
      assert.deepStrictEqual({ ...value, date: undefined }, {
        traveller: "Ada",
        email: "ada@example.com",
        date: undefined,
        passengers: 2,
        firstClass: false,
        seat: "any"
      })
      assert.strictEqual(value.date, TerminalUser.formatDate(new Date()))
      // and the content decodes with the tool's own schema
      const decoded = yield* Schema.decodeUnknownEffect(TripDetails.schema)(value)
      assert.strictEqual(decoded.passengers, 2)
      for (
        const title of [
          "Your name",
          "Email for the tickets (email)",
          "Departure date",
          "Passengers (1–8, integer)",
          "Seat",
          "Extras"
        ]
      ) {
        assert.include(output, title)
      }
    }))
})

const formParams = {
  mode: "form" as const,
  message: "Who travels?",
  requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] }
}

describe("terminal handlers", () => {
  it.effect("form: shows the round and message, then accept with the content", () =>
    Effect.gen(function*() {
      const { output, value } = yield* drive(TerminalUser.form(formParams, context), [enter, type("Kim"), enter])
      assert.deepStrictEqual(value, { action: "accept", content: { name: "Kim" } })
      assert.include(output, "round 1 · details · form · tools/call plan_trip")
      assert.include(output, "Who travels?")
    }))

  it.effect("form: decline and cancel are one choice away; Esc cancels", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* drive(TerminalUser.form(formParams, context), [down, enter])).value, {
        action: "decline"
      })
      assert.deepStrictEqual((yield* drive(TerminalUser.form(formParams, context), [down, down, enter])).value, {
        action: "cancel"
      })
      const escaped = yield* drive(TerminalUser.form(formParams, context), [enter, type("Ki"), escape])
      assert.deepStrictEqual(escaped.value, { action: "cancel" })
      assert.include(escaped.output, "(cancelled)")
    }))

  it.effect("url: prints the URL and asks before opening it", () =>
    Effect.gen(function*() {
      const opened: Array<string> = []
      const handler = TerminalUser.url((u) => Effect.sync(() => void opened.push(u)))
      const params = { mode: "url" as const, message: "Sign in", url: "https://example.com/auth" }
      const accepted = yield* drive(handler(params, { ...context, key: "auth" }), [enter])
      assert.deepStrictEqual(accepted.value, { action: "accept" })
      assert.deepStrictEqual(opened, ["https://example.com/auth"])
      assert.include(accepted.output, "URL: https://example.com/auth")
      assert.include(accepted.output, "Open this URL?")
      const declined = yield* drive(handler(params, context), [down, enter])
      assert.deepStrictEqual(declined.value, { action: "decline" })
      assert.deepStrictEqual(opened.length, 1)
    }))

  it.effect("urlWait: shows the wait; r retries now, c or Esc cancels, otherwise it retries after the backoff", () =>
    Effect.gen(function*() {
      const params = { mode: "url" as const, message: "Paste your key", url: "https://mcp.example.com/i/abc" }
      const waiting = { ...context, key: "api_key", attempt: 3 }
      const now = yield* drive(TerminalUser.urlWait(params, waiting), [char("x"), char("r")])
      assert.deepStrictEqual(now.value, { action: "accept" })
      assert.include(now.output, "Waiting for you to complete the page at https://mcp.example.com/i/abc")
      assert.include(now.output, "retrying in 4 s")
      assert.include(now.output, "r retry now")
      const cancelled = yield* drive(TerminalUser.urlWait(params, waiting), [char("c")])
      assert.deepStrictEqual(cancelled.value, { action: "cancel" })
      assert.include(cancelled.output, "(cancelled)")
      assert.deepStrictEqual((yield* drive(TerminalUser.urlWait(params, waiting), [escape])).value, {
        action: "cancel"
      })

      const terminal = scripted([], { open: true })
      const fiber = yield* TerminalUser.urlWait(params, { ...waiting, attempt: 1 }).pipe(
        Effect.provide(terminal.layer),
        Effect.forkChild
      )
      yield* TestClock.adjust("999 millis")
      assert.isUndefined(fiber.pollUnsafe(), "still waiting before the backoff")
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), { action: "accept" })
    }))

  it.effect("sampling: shows the conversation; the person types the model's reply", () =>
    Effect.gen(function*() {
      const params = {
        systemPrompt: "Be brief.",
        messages: [{ role: "user" as const, content: { type: "text" as const, text: "A tagline?" } }],
        maxTokens: 60
      }
      const { output, value } = yield* drive(TerminalUser.createMessage(params, { ...context, key: "tagline" }), [
        enter,
        type("Go by rail."),
        enter
      ])
      assert.deepStrictEqual(value, TerminalUser.textReply("Go by rail.", "human"))
      assert.include(output, "user: A tagline?")
      assert.include(output, "system: Be brief.")
      assert.include(output, "Type a reply")
      const refused = yield* drive(TerminalUser.createMessage(params, context), [escape]).pipe(Effect.flip)
      assert.strictEqual(refused._tag, "InputHandlerError")
    }))

  it.effect("the layer answers a whole conversation through the client, one question at a time", () =>
    Effect.gen(function*() {
      // a server asking two forms in one round, then done
      let n = 0
      const handler: MemoryTransport.Handler = {
        handle: ({ message }) =>
          Effect.sync(() => {
            const request = message as { readonly id: number; readonly params: Record<string, unknown> }
            n++
            const result = n === 1
              ? {
                resultType: "input_required",
                inputRequests: {
                  a: { method: "elicitation/create", params: { ...formParams, message: "First?" } },
                  b: { method: "elicitation/create", params: { ...formParams, message: "Second?" } },
                  r: { method: "roots/list", params: {} }
                }
              }
              : {
                resultType: "complete",
                content: [{ type: "text", text: JSON.stringify(request.params.inputResponses) }]
              }
            return { _tag: "Response" as const, message: { jsonrpc: "2.0", id: request.id, result }, httpStatus: 200 }
          })
      }
      const terminal = scripted([enter, type("X"), enter, enter, type("Y"), enter])
      const result = yield* McpClient.McpClient.use((client) => client.callTool({ name: "t" })).pipe(
        Effect.provide(
          // a scripted modern-only server: no probe
          McpClient.layer({ protocol: "2026-07-28" }).pipe(
            Layer.provide(MemoryTransport.layer(handler)),
            Layer.provide(TerminalUser.layer({ roots: [{ uri: "file:///w" }] }).pipe(Layer.provide(terminal.layer)))
          )
        )
      )
      const answers = JSON.parse((result.content[0] as { readonly text: string }).text)
      // the two forms were asked in turn (never drawn at once), each got its own answer
      assert.sameMembers([answers.a.content.name, answers.b.content.name], ["X", "Y"])
      assert.deepStrictEqual(answers.r, { roots: [{ uri: "file:///w" }] })
      const output = terminal.output()
      const first = Math.min(output.indexOf("First?"), output.indexOf("Second?"))
      const second = Math.max(output.indexOf("First?"), output.indexOf("Second?"))
      const firstSubmitted = output.indexOf("✔ name")
      assert.isTrue(first >= 0 && first < firstSubmitted && firstSubmitted < second, output)
    }))

  it.effect("declares form and URL elicitation, sampling and roots", () =>
    Effect.gen(function*() {
      const elicitation = yield* ElicitationHandler.ElicitationHandler
      const sampling = yield* SamplingHandler.SamplingHandler
      assert.deepStrictEqual(ElicitationHandler.capability(elicitation), { form: {}, url: {} })
      assert.deepStrictEqual(SamplingHandler.capability(sampling), {})
    }).pipe(Effect.provide(TerminalUser.layer().pipe(Layer.provide(scripted([]).layer)))))
})

describe("hostile servers", () => {
  it("escape sequences and bidi overrides from the server never reach the terminal", () =>
    Effect.gen(function*() {
      const evil = "\u001b[2J\u001b[H\u001b]0;PWNED\u0007Type your password:\u001b[8m\u202e"
      const { output } = yield* drive(
        TerminalUser.form(
          {
            message: `hello ${evil}`,
            requestedSchema: {
              type: "object",
              properties: { [`x${evil}`]: { type: "string", title: `T${evil}`, description: `D${evil}` } }
            }
          } as any,
          { ...context, key: `k${evil}` }
        ),
        [key("escape")]
      )
      const shown = output
      assert.notInclude(shown, "PWNED\u0007")
      assert.notInclude(shown, "\u001b]0;")
      assert.notInclude(shown, "\u001b[2J")
      assert.notInclude(shown, "\u202e")
      assert.include(shown, "hello [2J[H]0;PWNEDType your password:[8m")
      assert.strictEqual(clean(`a${evil}b`), "a[2J[H]0;PWNEDType your password:[8mb")
    }))

  it("only http(s) URLs are offered for opening", () =>
    Effect.gen(function*() {
      assert.isTrue(TerminalUser.isOpenable("https://example.com/login"))
      for (const url of ["javascript:alert(1)", "file:///etc/passwd", "vscode://x", "not a url", "//example.com"]) {
        assert.isFalse(TerminalUser.isOpenable(url), url)
      }
      const opened: Array<string> = []
      const open = (url: string) => Effect.sync(() => void opened.push(url))
      // the first choice is Decline when the URL cannot be opened: Enter declines, nothing opens
      const { value } = yield* drive(
        TerminalUser.url(open)({ mode: "url", message: "click", url: "javascript:alert(1)" }, context),
        [enter]
      )
      assert.deepStrictEqual(value, { action: "decline" })
      assert.deepStrictEqual(opened, [])
    }))
})

describe("a form asked again after a refused answer", () => {
  const signUp = Tool.make("sign_up", {
    handler: () =>
      Elicitation.form({
        key: "who",
        message: "Who are you?",
        schema: Schema.Struct({ email: Schema.String.annotate({ format: "email" }) })
      }).pipe(Effect.map(({ email }) => email))
  })
  const server = McpServer.tools(signUp).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "refusals",
      version: "1",
      requestState: { keyRing: RequestState.KeyRing.fromBytes([{ bytes: new Uint8Array(32).fill(4) }]) }
    })),
    Layer.orDie
  )
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} }
  }
  const call = (id: number, extra: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "sign_up", _meta: meta, ...extra }
  })

  it.effect("shows the server's reason above the form, apart from the form's message", () =>
    Effect.gen(function*() {
      const mcp = yield* McpServer.McpServer
      const resultOf = (reply: unknown) => (reply as { message: { result: Record<string, any> } }).message.result
      const first = resultOf(yield* mcp.handle({ message: call(1) }))
      const second = resultOf(
        yield* mcp.handle({
          message: call(2, {
            inputResponses: { who: { action: "accept", content: { email: "ada@localhost" } } },
            requestState: first.requestState
          })
        })
      )
      const params = second.inputRequests.who.params
      assert.isTrue(params.message.startsWith(TerminalUser.refusedPrefix))
      const { output, value } = yield* drive(TerminalUser.form(params, context), [
        enter,
        type("ada@example.org"),
        enter
      ])
      assert.deepStrictEqual(value, { action: "accept", content: { email: "ada@example.org" } })
      const reason = output.indexOf("⚠ Your answer was not accepted: \"email\" must be an email address")
      const message = output.indexOf("│ Who are you?")
      const choice = output.indexOf("Answer?")
      const field = output.indexOf("email")
      assert.isTrue(message >= 0 && message < reason && reason < choice, output)
      assert.isTrue(field >= 0, output)
      // the form's own message is shown once, without the reason mixed into it
      assert.strictEqual(output.split("Who are you?").length - 1, 1, output)
    }).pipe(Effect.provide(server)))

  // the README's order is "answers file, then flags, then you at the terminal"
  const signUpWith = (interactive: boolean, keys: Parameters<typeof scripted>[0]) =>
    Effect.gen(function*() {
      const mcp = yield* McpServer.McpServer
      const terminal = scripted(keys)
      const replies: Array<unknown> = []
      const wire: MemoryTransport.Handler = {
        handle: (incoming) =>
          mcp.handle(incoming).pipe(
            Effect.tap((reply) => Effect.sync(() => "message" in reply && replies.push(reply.message)))
          )
      }
      const handlers = Cli.handlersLayer({
        answers: { who: { email: "ada@localhost" } },
        roots: [],
        samplingReply: undefined,
        interactive
      })
      const result = yield* McpClient.McpClient.use((client) => client.callTool({ name: "sign_up" })).pipe(
        Effect.provide(
          // pinned: the replies counted are the call's rounds (no server/discover probe)
          McpClient.layer({ protocol: "2026-07-28" }).pipe(
            Layer.provide(MemoryTransport.layer(wire)),
            Layer.provide(handlers.pipe(Layer.provide(terminal.layer)))
          )
        ),
        Effect.result
      )
      for (const reply of replies) validateWire("JSONRPCResponse", reply)
      return { result, output: terminal.output(), replies }
    }).pipe(Effect.provide(server))

  it.effect("an answers-file answer the server refuses: at a terminal, the person answers, shown the reason", () =>
    Effect.gen(function*() {
      const { output, result } = yield* signUpWith(true, [enter, type("ada@example.org"), enter])
      assert.isTrue(Result.isSuccess(result), String(result))
      if (Result.isSuccess(result)) {
        assert.deepStrictEqual(result.success.content, [{ type: "text", text: "ada@example.org" }])
      }
      assert.include(output, "⚠ Your answer was not accepted: \"email\" must be an email address")
    }))

  it.effect("an answers-file answer the server refuses: without a terminal, the error quotes the server's reason", () =>
    Effect.gen(function*() {
      const { output, replies, result } = yield* signUpWith(false, [])
      assert.isTrue(Result.isFailure(result))
      if (Result.isFailure(result)) {
        assert.strictEqual(result.failure._tag, "InputHandlerError")
        assert.include(
          result.failure.message,
          "did not accept the answer from the answers file: \"email\" must be an email address (such as name@example.com)."
        )
      }
      // two requests: the file's answer was sent once, never again
      assert.strictEqual(replies.length, 2)
      assert.strictEqual(output, "")
    }))
})
