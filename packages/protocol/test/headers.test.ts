/**
 * (e) Streamable HTTP headers: value encoding round-trips (including
 * non-ASCII), malformed base64 forms, Mcp-Name / Mcp-Param-* derivation,
 * x-mcp-header validation, and validateRequestHeaders.
 */
import { describe, expect, it } from "@effect/vitest"
import * as P from "../src/index.ts"

const b64 = (value: string) => `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`

describe("encodeHeaderValue / decodeHeaderValue", () => {
  const plain = ["us-west1", "", "us west 1", "get_weather", "file:///path/to/file%20name.txt", "a=b?c", "=?base64?"]
  const encoded = [
    "Hello, 世界",
    " padded ",
    " leading",
    "trailing ",
    "line1\nline2",
    "line1\r\nline2",
    "\tindented",
    "tab\tinside",
    "=?base64?literal?=",
    "=?base64??=",
    "naïve café",
    "emoji 🚀",
    "\u0000nul",
    "del\u007f"
  ]

  for (const value of plain) {
    it(`sends ${JSON.stringify(value)} as is`, () => {
      expect(P.Headers.isPlainHeaderValue(value)).toBe(true)
      expect(P.Headers.encodeHeaderValue(value)).toBe(value)
      expect(P.Headers.decodeHeaderValue(P.Headers.encodeHeaderValue(value))).toBe(value)
    })
  }

  for (const value of encoded) {
    it(`base64-encodes ${JSON.stringify(value)} and decodes it back`, () => {
      const header = P.Headers.encodeHeaderValue(value)
      expect(header).toBe(b64(value))
      expect(header).toMatch(/^=\?base64\?[A-Za-z0-9+/]*={0,2}\?=$/)
      expect(P.Headers.decodeHeaderValue(header)).toBe(value)
    })
  }

  it("encodes known vectors", () => {
    expect(P.Headers.encodeHeaderValue("Grüße")).toBe("=?base64?R3LDvMOfZQ==?=")
    expect(P.Headers.encodeHeaderValue(" x ")).toBe("=?base64?IHgg?=")
  })

  const malformed: ReadonlyArray<readonly [string, string]> = [
    ["characters outside the base64 alphabet", "=?base64?!!!!?="],
    ["a length that is not a multiple of 4", "=?base64?abc?="],
    ["missing padding", "=?base64?SGVsbG8?="],
    ["padding in the middle", "=?base64?SG=sbG8=?="],
    ["URL-safe alphabet", "=?base64?-_-_?="],
    ["embedded whitespace", "=?base64?SGVs bG8=?="],
    ["bytes that are not UTF-8", `=?base64?${Buffer.from([0xff, 0xfe]).toString("base64")}?=`],
    ["a truncated UTF-8 sequence", `=?base64?${Buffer.from([0xe4, 0xb8]).toString("base64")}?=`]
  ]
  for (const [label, raw] of malformed) {
    it(`rejects a base64 form with ${label}`, () => {
      expect(P.Headers.decodeHeaderValue(raw)).toBeUndefined()
    })
  }

  it("treats the markers case-sensitively", () => {
    expect(P.Headers.decodeHeaderValue("=?BASE64?SGk=?=")).toBe("=?BASE64?SGk=?=")
  })

  it("decodes an empty base64 payload to the empty string", () => {
    expect(P.Headers.decodeHeaderValue("=?base64??=")).toBe("")
  })

  it("rejects plain values with control or non-ASCII characters", () => {
    expect(P.Headers.decodeHeaderValue("caf\u00e9")).toBeUndefined()
    expect(P.Headers.decodeHeaderValue("a\nb")).toBeUndefined()
    expect(P.Headers.decodeHeaderValue("a\u0000b")).toBeUndefined()
    expect(P.Headers.decodeHeaderValue("a\tb")).toBe("a\tb")
  })
})

describe("nameFor", () => {
  it("mirrors params.name / params.uri for the three named methods", () => {
    expect(P.Headers.nameFor("tools/call", { name: "get_weather" })).toBe("get_weather")
    expect(P.Headers.nameFor("prompts/get", { name: "essay" })).toBe("essay")
    expect(P.Headers.nameFor("resources/read", { uri: "file:///a.txt", name: "ignored" })).toBe("file:///a.txt")
  })
  it("is undefined elsewhere or when the member is missing", () => {
    expect(P.Headers.nameFor("tools/list", { name: "x" })).toBeUndefined()
    expect(P.Headers.nameFor("tools/call", undefined)).toBeUndefined()
    expect(P.Headers.nameFor("tools/call", { name: 3 })).toBeUndefined()
    expect(P.Headers.nameFor("resources/read", { name: "x" })).toBeUndefined()
  })
})

const headerTool: P.Schema.Tool = {
  name: "deploy",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      replicas: { type: "integer", "x-mcp-header": "Replicas" },
      ratio: { type: "number", "x-mcp-header": "Ratio" },
      dryRun: { type: "boolean", "x-mcp-header": "DryRun" },
      label: { type: "string", "x-mcp-header": "Label" },
      method_val: { type: "string", "x-mcp-header": "Method" },
      target: {
        type: "object",
        properties: { tenant: { type: "string", "x-mcp-header": "Tenant" } }
      },
      notes: { type: "string" }
    },
    required: ["region"]
  }
}

describe("paramHeaders", () => {
  it("mirrors annotated arguments, stringified and encoded", () => {
    expect(
      P.Headers.paramHeaders(headerTool, {
        region: "us-west1",
        replicas: 42,
        ratio: 0.25,
        dryRun: false,
        label: "Größe",
        method_val: "m",
        target: { tenant: "acme" },
        notes: "not mirrored"
      })
    ).toEqual({
      "Mcp-Param-Region": "us-west1",
      "Mcp-Param-Replicas": "42",
      "Mcp-Param-Ratio": "0.25",
      "Mcp-Param-DryRun": "false",
      "Mcp-Param-Label": b64("Größe"),
      "Mcp-Param-Method": "m",
      "Mcp-Param-Tenant": "acme"
    })
  })

  it("omits absent, null and non-primitive arguments", () => {
    expect(P.Headers.paramHeaders(headerTool, { region: "eu", dryRun: null, label: { x: 1 }, target: "flat" })).toEqual(
      {
        "Mcp-Param-Region": "eu"
      }
    )
    expect(P.Headers.paramHeaders(headerTool, undefined)).toEqual({})
    expect(P.Headers.paramHeaders({ inputSchema: { type: "object" } }, { a: 1 })).toEqual({})
  })

  it("sends an empty string as an empty header value", () => {
    expect(P.Headers.paramHeaders(headerTool, { region: "" })).toEqual({ "Mcp-Param-Region": "" })
  })

  it("lists the annotations with their property paths", () => {
    expect(P.Headers.headerAnnotations(headerTool).map((a) => `${a.header}:${a.path.join(".")}`)).toEqual([
      "Region:region",
      "Replicas:replicas",
      "Ratio:ratio",
      "DryRun:dryRun",
      "Label:label",
      "Method:method_val",
      "Tenant:target.tenant"
    ])
  })
})

describe("headerAnnotationError (tool definitions a client must drop)", () => {
  const withProperty = (property: Record<string, unknown>): P.Headers.ToolLike => ({
    inputSchema: { type: "object", properties: { value: property } }
  })

  it("accepts valid annotations (including nested properties and type number)", () => {
    expect(P.Headers.headerAnnotationError(headerTool)).toBeUndefined()
    expect(P.Headers.headerAnnotationError({ inputSchema: { type: "object" } })).toBeUndefined()
  })

  const invalid: ReadonlyArray<readonly [string, P.Headers.ToolLike, string]> = [
    ["an empty header name", withProperty({ type: "string", "x-mcp-header": "" }), "non-empty"],
    ["a non-string header name", withProperty({ type: "string", "x-mcp-header": 5 }), "non-empty string"],
    ["a space in the name", withProperty({ type: "string", "x-mcp-header": "My Region" }), "token"],
    ["a colon in the name", withProperty({ type: "string", "x-mcp-header": "Region:Primary" }), "token"],
    ["a non-ASCII name", withProperty({ type: "string", "x-mcp-header": "Région" }), "token"],
    ["a control character in the name", withProperty({ type: "string", "x-mcp-header": "Region\t1" }), "token"],
    ["an object property", withProperty({ type: "object", "x-mcp-header": "Data" }), "string, integer or boolean"],
    [
      "an array property",
      withProperty({ type: "array", items: { type: "string" }, "x-mcp-header": "Items" }),
      "string, integer or boolean"
    ],
    ["a null property", withProperty({ type: "null", "x-mcp-header": "Nil" }), "string, integer or boolean"],
    ["a property without type", withProperty({ "x-mcp-header": "Any" }), "string, integer or boolean"],
    [
      "duplicate names",
      {
        inputSchema: {
          type: "object",
          properties: {
            a: { type: "string", "x-mcp-header": "Region" },
            b: { type: "string", "x-mcp-header": "Region" }
          }
        }
      },
      "duplicates"
    ],
    [
      "duplicate names differing in case",
      {
        inputSchema: {
          type: "object",
          properties: {
            a: { type: "string", "x-mcp-header": "MyField" },
            b: { type: "string", "x-mcp-header": "myfield" }
          }
        }
      },
      "case-insensitive"
    ],
    [
      "an annotation under items",
      {
        inputSchema: {
          type: "object",
          properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }
        }
      },
      "not statically reachable"
    ],
    [
      "an annotation under oneOf",
      {
        inputSchema: {
          type: "object",
          oneOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }]
        }
      },
      "not statically reachable"
    ],
    [
      "an annotation under $defs",
      {
        inputSchema: {
          type: "object",
          $defs: { s: { type: "string", "x-mcp-header": "S" } },
          properties: { a: { $ref: "#/$defs/s" } }
        }
      },
      "not statically reachable"
    ],
    [
      "an annotation on the root",
      { inputSchema: { type: "object", "x-mcp-header": "Root" } },
      "not statically reachable"
    ]
  ]
  for (const [label, tool, fragment] of invalid) {
    it(`rejects ${label}`, () => {
      expect(P.Headers.headerAnnotationError(tool)).toContain(fragment)
    })
  }

  it("ignores x-mcp-header keys inside data keywords", () => {
    expect(
      P.Headers.headerAnnotationError({
        inputSchema: { type: "object", properties: { a: { type: "object", default: { "x-mcp-header": "no" } } } }
      })
    ).toBeUndefined()
  })
})

const meta = P.Meta.makeRequestMeta({ clientCapabilities: {} })
const callTool = (args: Record<string, unknown>, name = "deploy") => ({
  method: "tools/call",
  params: { _meta: meta, name, arguments: args }
})

/** A case-insensitive header getter over a plain object, like Fetch `Headers.get`. */
const headersOf = (headers: Record<string, string>) => {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  return (name: string) => lower.get(name.toLowerCase())
}

describe("requestHeaders", () => {
  it("builds the standard and custom headers of a tools/call", () => {
    expect(P.Headers.requestHeaders(callTool({ region: "eu", replicas: 3 }, "déployer"), headerTool)).toEqual({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": b64("déployer"),
      "Mcp-Param-Region": "eu",
      "Mcp-Param-Replicas": "3"
    })
  })
  it("omits Mcp-Name for methods without one", () => {
    expect(P.Headers.requestHeaders({ method: "tools/list", params: { _meta: meta } })).toEqual({
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/list"
    })
  })
  it("uses params.uri for resources/read", () => {
    expect(
      P.Headers.requestHeaders({
        method: "resources/read",
        params: { _meta: meta, uri: "file:///a b.txt" }
      })["Mcp-Name"]
    )
      .toBe("file:///a b.txt")
  })
})

describe("validateRequestHeaders", () => {
  const valid = (message: P.Headers.HeaderCheckedMessage, tool?: P.Headers.ToolLike) =>
    headersOf(P.Headers.requestHeaders(message, tool))

  it("accepts the headers requestHeaders builds (any header-name case)", () => {
    const message = callTool({
      region: "eu-west",
      replicas: 2,
      dryRun: true,
      label: "Ünïcode",
      target: { tenant: "t" }
    })
    const headers = P.Headers.requestHeaders(message, headerTool)
    const lowered = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
    expect(P.Headers.validateRequestHeaders(headersOf(lowered), message, headerTool)).toBeUndefined()
    expect(P.Headers.validateRequestHeaders(valid({ method: "prompts/get", params: { _meta: meta, name: "essay" } }), {
      method: "prompts/get",
      params: { _meta: meta, name: "essay" }
    })).toBeUndefined()
  })

  const expectMismatch = (error: P.ErrorCode.McpError | undefined, ...fragments: ReadonlyArray<string>) => {
    expect(error).toBeInstanceOf(P.ErrorCode.McpError)
    expect(error?.code).toBe(P.ErrorCode.ErrorCode.HeaderMismatch)
    expect(error?.httpStatus).toBe(400)
    for (const fragment of fragments) expect(error?.message).toContain(fragment)
  }

  const listTools = { method: "tools/list", params: { _meta: meta } }

  it("requires MCP-Protocol-Version", () => {
    expectMismatch(
      P.Headers.validateRequestHeaders(headersOf({ "Mcp-Method": "tools/list" }), listTools),
      "MCP-Protocol-Version"
    )
  })

  it("rejects an MCP-Protocol-Version that differs from _meta", () => {
    expectMismatch(
      P.Headers.validateRequestHeaders(
        headersOf({ "MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list" }),
        listTools
      ),
      "2025-11-25",
      "2026-07-28"
    )
  })

  it("does not compare the version when _meta has none (that is a -32602 matter)", () => {
    expect(
      P.Headers.validateRequestHeaders(
        headersOf({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list" }),
        {
          method: "tools/list",
          params: {}
        }
      )
    ).toBeUndefined()
  })

  it("requires Mcp-Method and compares it case-sensitively", () => {
    expectMismatch(
      P.Headers.validateRequestHeaders(headersOf({ "MCP-Protocol-Version": "2026-07-28" }), listTools),
      "Mcp-Method"
    )
    expectMismatch(
      P.Headers.validateRequestHeaders(
        headersOf({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "Tools/List" }),
        listTools
      ),
      "Tools/List"
    )
  })

  it("requires Mcp-Name on tools/call, prompts/get and resources/read", () => {
    for (
      const message of [
        { method: "tools/call", params: { _meta: meta, name: "x" } },
        { method: "prompts/get", params: { _meta: meta, name: "x" } },
        { method: "resources/read", params: { _meta: meta, uri: "file:///x" } }
      ]
    ) {
      expectMismatch(
        P.Headers.validateRequestHeaders(
          headersOf({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": message.method }),
          message
        ),
        "missing Mcp-Name"
      )
    }
  })

  it("rejects a mismatched or malformed Mcp-Name, accepts a base64 one", () => {
    const message = { method: "tools/call", params: { _meta: meta, name: "wetter-für-heute" } }
    const base = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call" }
    expectMismatch(
      P.Headers.validateRequestHeaders(headersOf({ ...base, "Mcp-Name": "other" }), message),
      "'other'",
      "params.name"
    )
    expectMismatch(
      P.Headers.validateRequestHeaders(headersOf({ ...base, "Mcp-Name": "=?base64?***?=" }), message),
      "malformed"
    )
    expect(P.Headers.validateRequestHeaders(headersOf({ ...base, "Mcp-Name": b64("wetter-für-heute") }), message))
      .toBeUndefined()
  })

  it("compares a plain Mcp-Name exactly (a base64 header of a plain name is also accepted)", () => {
    const message = { method: "resources/read", params: { _meta: meta, uri: "file:///a.txt" } }
    const base = { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read" }
    expect(P.Headers.validateRequestHeaders(headersOf({ ...base, "Mcp-Name": "file:///a.txt" }), message))
      .toBeUndefined()
    expect(P.Headers.validateRequestHeaders(headersOf({ ...base, "Mcp-Name": b64("file:///a.txt") }), message))
      .toBeUndefined()
    expectMismatch(
      P.Headers.validateRequestHeaders(headersOf({ ...base, "Mcp-Name": "file:///A.txt" }), message),
      "params.uri"
    )
  })

  it("ignores Mcp-Name on other methods", () => {
    expect(
      P.Headers.validateRequestHeaders(
        headersOf({ "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "whatever" }),
        listTools
      )
    ).toBeUndefined()
  })

  describe("Mcp-Param-* (when the tool definition is given)", () => {
    const message = callTool({ region: "eu", replicas: 42, dryRun: true })
    const good = P.Headers.requestHeaders(message, headerTool)

    it("requires the header when the argument is present", () => {
      const { ["Mcp-Param-Replicas"]: _, ...rest } = good
      expectMismatch(
        P.Headers.validateRequestHeaders(headersOf(rest), message, headerTool),
        "missing Mcp-Param-Replicas"
      )
    })

    it("rejects a header whose argument is absent or null", () => {
      const withExtra = { ...good, "Mcp-Param-Label": "x" }
      expectMismatch(P.Headers.validateRequestHeaders(headersOf(withExtra), message, headerTool), "Mcp-Param-Label")
      const nullLabel = callTool({ region: "eu", replicas: 42, dryRun: true, label: null })
      expectMismatch(
        P.Headers.validateRequestHeaders(
          headersOf({ ...P.Headers.requestHeaders(nullLabel, headerTool), "Mcp-Param-Label": "null" }),
          nullLabel,
          headerTool
        ),
        "Mcp-Param-Label"
      )
    })

    it("compares numbers numerically", () => {
      expect(
        P.Headers.validateRequestHeaders(headersOf({ ...good, "Mcp-Param-Replicas": "42.0" }), message, headerTool)
      )
        .toBeUndefined()
      expectMismatch(
        P.Headers.validateRequestHeaders(headersOf({ ...good, "Mcp-Param-Replicas": "43" }), message, headerTool),
        "'43'",
        "'42'"
      )
      expectMismatch(
        P.Headers.validateRequestHeaders(headersOf({ ...good, "Mcp-Param-Replicas": "" }), message, headerTool),
        "Replicas"
      )
    })

    it("compares booleans and strings exactly", () => {
      expectMismatch(
        P.Headers.validateRequestHeaders(headersOf({ ...good, "Mcp-Param-DryRun": "True" }), message, headerTool),
        "DryRun"
      )
      expectMismatch(
        P.Headers.validateRequestHeaders(headersOf({ ...good, "Mcp-Param-Region": "EU" }), message, headerTool),
        "Region"
      )
    })

    it("decodes base64 values before comparing and rejects malformed ones", () => {
      const unicode = callTool({ region: "亚太" })
      const headers = P.Headers.requestHeaders(unicode, headerTool)
      expect(headers["Mcp-Param-Region"]).toBe(b64("亚太"))
      expect(P.Headers.validateRequestHeaders(headersOf(headers), unicode, headerTool)).toBeUndefined()
      expectMismatch(
        P.Headers.validateRequestHeaders(
          headersOf({ ...headers, "Mcp-Param-Region": "=?base64?5Lqa5aSq?" }),
          unicode,
          headerTool
        ),
        "Mcp-Param-Region"
      )
      expectMismatch(
        P.Headers.validateRequestHeaders(
          headersOf({ ...headers, "Mcp-Param-Region": "=?base64?%%%%?=" }),
          unicode,
          headerTool
        ),
        "malformed"
      )
    })

    it("checks nested annotated properties", () => {
      const nested = callTool({ region: "eu", target: { tenant: "acme" } })
      const headers = P.Headers.requestHeaders(nested, headerTool)
      expect(headers["Mcp-Param-Tenant"]).toBe("acme")
      expectMismatch(
        P.Headers.validateRequestHeaders(headersOf({ ...headers, "Mcp-Param-Tenant": "evil" }), nested, headerTool),
        "arguments.target.tenant"
      )
    })

    it("does not inspect Mcp-Param-* without a tool definition", () => {
      expect(P.Headers.validateRequestHeaders(headersOf({ ...good, "Mcp-Param-Region": "wrong" }), message))
        .toBeUndefined()
    })
  })
})
