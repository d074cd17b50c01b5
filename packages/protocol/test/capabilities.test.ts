/**
 * (d) requiredCapabilities / isSatisfiedBy / missingCapabilities / mergeCapabilities tables.
 */
import { describe, expect, it } from "@effect/vitest"
import * as P from "../src/index.ts"
import { validateWire } from "@mrtr/test-support/wire"

const formRequest: P.InputRequest = {
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }
}
const explicitFormRequest: P.InputRequest = {
  method: "elicitation/create",
  params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: {} } }
}
const urlRequest: P.InputRequest = {
  method: "elicitation/create",
  params: { mode: "url", message: "Sign in", url: "https://auth.example/x" }
}
const message = { role: "user" as const, content: { type: "text" as const, text: "hi" } }
const sampling = (extra: Partial<P.CreateMessageRequestParams> = {}): P.InputRequest => ({
  method: "sampling/createMessage",
  params: { messages: [message], maxTokens: 10, ...extra }
})
const rootsRequest: P.InputRequest = { method: "roots/list" }
const tool: P.Tool = { name: "t", inputSchema: { type: "object" } }

describe("requiredCapabilities", () => {
  const table: ReadonlyArray<readonly [string, P.InputRequest, P.ClientCapabilities]> = [
    ["elicitation without mode", formRequest, { elicitation: {} }],
    ["elicitation mode form", explicitFormRequest, { elicitation: {} }],
    ["elicitation mode url", urlRequest, { elicitation: { url: {} } }],
    ["sampling", sampling(), { sampling: {} }],
    ["sampling includeContext none", sampling({ includeContext: "none" }), { sampling: {} }],
    ["sampling includeContext thisServer", sampling({ includeContext: "thisServer" }), { sampling: { context: {} } }],
    ["sampling includeContext allServers", sampling({ includeContext: "allServers" }), { sampling: { context: {} } }],
    ["sampling with tools", sampling({ tools: [tool] }), { sampling: { tools: {} } }],
    ["sampling with an empty tools array", sampling({ tools: [] }), { sampling: { tools: {} } }],
    ["sampling with toolChoice", sampling({ toolChoice: { mode: "none" } }), { sampling: { tools: {} } }],
    [
      "sampling with tools and context",
      sampling({ tools: [tool], includeContext: "allServers" }),
      { sampling: { context: {}, tools: {} } }
    ],
    ["roots/list", rootsRequest, { roots: {} }],
    ["roots/list with params", { method: "roots/list", params: {} }, { roots: {} }]
  ]
  for (const [label, request, expected] of table) {
    it(label, () => {
      const required = P.requiredCapabilities(request)
      expect(required).toEqual(expected)
      validateWire("ClientCapabilities", required)
    })
  }

  it("requiredCapabilitiesForAll unions a whole InputRequests map", () => {
    expect(P.requiredCapabilitiesForAll({ a: formRequest, b: urlRequest, c: sampling({ tools: [tool] }), d: rootsRequest }))
      .toEqual({ elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} })
    expect(P.requiredCapabilitiesForAll({})).toEqual({})
    expect(P.requiredCapabilitiesForAll([formRequest, formRequest])).toEqual({ elicitation: {} })
  })
})

describe("isSatisfiedBy / missingCapabilities", () => {
  const conformanceDefaults: P.ClientCapabilities = { sampling: {}, elicitation: {}, roots: { listChanged: true } }
  const table: ReadonlyArray<
    readonly [string, P.ClientCapabilities, P.ClientCapabilities, P.ClientCapabilities | undefined]
  > = [
    ["nothing required, nothing declared", {}, {}, undefined],
    ["form required, elicitation {} declared", { elicitation: {} }, { elicitation: {} }, undefined],
    ["form required, elicitation.form declared", { elicitation: {} }, { elicitation: { form: {} } }, undefined],
    ["form required, url-only declared", { elicitation: {} }, { elicitation: { url: {} } }, { elicitation: {} }],
    ["form required, nothing declared", { elicitation: {} }, {}, { elicitation: {} }],
    ["form required, only sampling declared", { elicitation: {} }, { sampling: {} }, { elicitation: {} }],
    ["url required, elicitation {} declared (form only)", { elicitation: { url: {} } }, { elicitation: {} }, {
      elicitation: { url: {} }
    }],
    ["url required, elicitation.form declared", { elicitation: { url: {} } }, { elicitation: { form: {} } }, {
      elicitation: { url: {} }
    }],
    ["url required, elicitation.url declared", { elicitation: { url: {} } }, { elicitation: { url: {} } }, undefined],
    ["form+url required, url declared", { elicitation: { form: {}, url: {} } }, { elicitation: { url: {} } }, {
      elicitation: { form: {} }
    }],
    ["form+url required, both declared", { elicitation: { form: {}, url: {} } }, {
      elicitation: { form: {}, url: {} }
    }, undefined],
    ["sampling required, sampling declared", { sampling: {} }, { sampling: {} }, undefined],
    ["sampling required, nothing declared", { sampling: {} }, {}, { sampling: {} }],
    ["sampling.tools required, sampling {} declared", { sampling: { tools: {} } }, { sampling: {} }, {
      sampling: { tools: {} }
    }],
    ["sampling.tools required, sampling.tools declared", { sampling: { tools: {} } }, { sampling: { tools: {} } }, undefined],
    ["sampling.context required, sampling.tools declared", { sampling: { context: {} } }, { sampling: { tools: {} } }, {
      sampling: { context: {} }
    }],
    ["sampling tools+context required, context declared", { sampling: { tools: {}, context: {} } }, {
      sampling: { context: {} }
    }, { sampling: { tools: {} } }],
    ["sampling tools+context required, nothing declared", { sampling: { tools: {}, context: {} } }, {}, {
      sampling: { tools: {}, context: {} }
    }],
    ["roots required, roots declared", { roots: {} }, { roots: {} }, undefined],
    ["roots required, not declared", { roots: {} }, { sampling: {} }, { roots: {} }],
    ["conformance defaults cover form + sampling + roots", { elicitation: {}, sampling: {}, roots: {} }, conformanceDefaults, undefined],
    ["conformance defaults lack elicitation.url", { elicitation: { url: {} } }, conformanceDefaults, { elicitation: { url: {} } }],
    ["conformance defaults lack sampling.tools", { sampling: { tools: {} } }, conformanceDefaults, { sampling: { tools: {} } }],
    ["capability-check scenario: only sampling declared", { elicitation: {}, sampling: {} }, { sampling: {} }, {
      elicitation: {}
    }],
    ["extension required and declared", { extensions: { "io.example/x": {} } }, { extensions: { "io.example/x": { v: 1 } } }, undefined],
    ["extension required, another declared", { extensions: { "io.example/x": {} } }, { extensions: { "io.example/y": {} } }, {
      extensions: { "io.example/x": {} }
    }],
    ["experimental required, missing", { experimental: { beta: {} } }, {}, { experimental: { beta: {} } }]
  ]
  for (const [label, required, declared, missing] of table) {
    it(label, () => {
      expect(P.missingCapabilities(required, declared)).toEqual(missing)
      expect(P.isSatisfiedBy(required, declared)).toBe(missing === undefined)
      if (missing !== undefined) validateWire("ClientCapabilities", missing)
    })
  }

  it("requirements computed from input requests against declarations", () => {
    const declared: P.ClientCapabilities = { elicitation: {}, sampling: {} }
    expect(P.isSatisfiedBy(P.requiredCapabilities(formRequest), declared)).toBe(true)
    expect(P.isSatisfiedBy(P.requiredCapabilities(urlRequest), declared)).toBe(false)
    expect(P.isSatisfiedBy(P.requiredCapabilities(sampling()), declared)).toBe(true)
    expect(P.isSatisfiedBy(P.requiredCapabilities(sampling({ toolChoice: { mode: "auto" } })), declared)).toBe(false)
    expect(P.isSatisfiedBy(P.requiredCapabilities(sampling({ includeContext: "none" })), declared)).toBe(true)
    expect(P.isSatisfiedBy(P.requiredCapabilities(rootsRequest), declared)).toBe(false)
  })

  it("missingCapabilities feeds a -32021 error that validates against the schema", () => {
    const missing = P.missingCapabilities(P.requiredCapabilities(formRequest), { sampling: {} })
    expect(missing).toEqual({ elicitation: {} })
    const error = P.McpError.missingRequiredClientCapability(missing!)
    expect(error.code).toBe(-32021)
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } })
    validateWire("MissingRequiredClientCapabilityError", P.failure(1, error))
  })
})

describe("mergeCapabilities", () => {
  const table: ReadonlyArray<readonly [string, P.ClientCapabilities, P.ClientCapabilities, P.ClientCapabilities]> = [
    ["empty + empty", {}, {}, {}],
    ["form + form", { elicitation: {} }, { elicitation: {} }, { elicitation: {} }],
    ["form + url", { elicitation: {} }, { elicitation: { url: {} } }, { elicitation: { form: {}, url: {} } }],
    ["url + url", { elicitation: { url: {} } }, { elicitation: { url: {} } }, { elicitation: { url: {} } }],
    ["explicit form + nothing", { elicitation: { form: {} } }, {}, { elicitation: { form: {} } }],
    ["sampling + sampling.tools", { sampling: {} }, { sampling: { tools: {} } }, { sampling: { tools: {} } }],
    ["sampling.context + sampling.tools", { sampling: { context: {} } }, { sampling: { tools: {} } }, {
      sampling: { context: {}, tools: {} }
    }],
    ["roots + sampling", { roots: {} }, { sampling: {} }, { roots: {}, sampling: {} }],
    ["extensions are merged by key", { extensions: { a: {} } }, { extensions: { b: { x: 1 } } }, {
      extensions: { a: {}, b: { x: 1 } }
    }]
  ]
  for (const [label, a, b, expected] of table) {
    it(label, () => {
      expect(P.mergeCapabilities(a, b)).toEqual(expected)
      expect(P.mergeCapabilities(b, a)).toEqual(expected)
      // The merge is satisfied exactly by declarations that satisfy both sides.
      expect(P.isSatisfiedBy(a, expected)).toBe(true)
      expect(P.isSatisfiedBy(b, expected)).toBe(true)
    })
  }

  it("isEmptyCapabilities", () => {
    expect(P.isEmptyCapabilities({})).toBe(true)
    expect(P.isEmptyCapabilities({ roots: {} })).toBe(false)
  })
})

describe("extension names like Object.prototype members (issue 11, item 5)", () => {
  it("are kept by mergeCapabilities and checked by missingCapabilities like any other name", () => {
    const odd = JSON.parse('{"extensions":{"__proto__":{"v":1},"constructor":{},"toString":{}}}') as P.ClientCapabilities
    const merged = P.mergeCapabilities(odd, { extensions: { other: {} } })
    expect(Object.keys(merged.extensions ?? {}).sort()).toEqual(["__proto__", "constructor", "other", "toString"])
    expect(Object.hasOwn(merged.extensions ?? {}, "__proto__")).toBe(true)
    // declaring nothing does not count as declaring "constructor" or "toString"
    const missing = P.missingCapabilities({ extensions: { constructor: {}, toString: {} } }, {})
    expect(Object.keys(missing?.extensions ?? {}).sort()).toEqual(["constructor", "toString"])
    expect(P.isSatisfiedBy({ extensions: { toString: {} } }, { extensions: {} })).toBe(false)
    expect(P.isSatisfiedBy({ extensions: { toString: {} } }, odd)).toBe(true)
  })
})

describe("describeCapabilities", () => {
  it("names each capability with its sub-capabilities, form mode for an empty elicitation, odd keys quoted", () => {
    expect(P.describeCapabilities({ elicitation: {} })).toBe("elicitation.form")
    expect(P.describeCapabilities({ elicitation: { url: {} } })).toBe("elicitation.url")
    expect(P.describeCapabilities({ elicitation: { form: {}, url: {} }, roots: {} })).toBe("elicitation.form, elicitation.url, roots")
    expect(P.describeCapabilities({ sampling: { tools: {}, context: {} } })).toBe("sampling.tools, sampling.context")
    expect(P.describeCapabilities({ sampling: {} })).toBe("sampling")
    expect(P.describeCapabilities({ ["x\ny"]: { ["a b"]: {} } } as never)).toBe('"x\\ny"."a b"')
    expect(P.describeCapabilities({})).toBe("")
    const shown = P.describeCapabilities({ extensions: { "x\u2028y\u202e\u0085\u009b": {} } } as never)
    expect(shown).toBe('extensions."x\\u2028y\\u202e\\u0085\\u009b"')
    expect(shown).not.toMatch(/[\u2028\u202e\u0085\u009b]/)
  })

  it("is what -32021 MissingRequiredClientCapability says", () => {
    const error = P.McpError.missingRequiredClientCapability({ elicitation: { url: {} } })
    expect(error.message).toBe("Missing required client capability: elicitation.url")
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: { url: {} } } })
  })
})
