import { describe, expect, it } from "@effect/vitest"
import { Legacy } from "@mrtr/protocol"
import { LEGACY_SCHEMA_ID, validateWire } from "@mrtr/test-support/wire"
import { Schema } from "effect"

const legacy = (def: string, value: unknown) => validateWire(def, value, LEGACY_SCHEMA_ID)

describe("Legacy (2025-11-25 wire)", () => {
  it("negotiates only handshake-era versions", () => {
    expect(Legacy.negotiate("2025-11-25")).toBe("2025-11-25")
    expect(Legacy.negotiate("2025-06-18")).toBe("2025-06-18")
    expect(Legacy.negotiate("2025-03-26")).toBe("2025-03-26")
    expect(Legacy.negotiate("2026-07-28")).toBe("2025-11-25")
    expect(Legacy.negotiate("1999-01-01")).toBe("2025-11-25")
    expect(Legacy.negotiate(42)).toBe("2025-11-25")
  })

  it("round-trips initialize and its result as the official schema defines them", () => {
    const request = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: { roots: { listChanged: true }, elicitation: { form: {}, url: {} }, sampling: {} },
        clientInfo: { name: "c", version: "1" }
      }
    }
    legacy("InitializeRequest", request)
    const decoded = Schema.decodeUnknownSync(Legacy.InitializeRequest)(request)
    expect(decoded.params.capabilities.roots?.listChanged).toBe(true)
    legacy("InitializeRequest", Schema.encodeSync(Legacy.InitializeRequest)(decoded))
    const result = {
      protocolVersion: "2025-11-25",
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true }, logging: {} },
      serverInfo: { name: "s", version: "1" }
    }
    legacy(
      "InitializeResult",
      Schema.encodeSync(Legacy.InitializeResult)(Schema.decodeUnknownSync(Legacy.InitializeResult)(result))
    )
    expect(() => Schema.decodeUnknownSync(Legacy.InitializeRequest)({ ...request, params: { protocolVersion: "x" } }))
      .toThrow()
  })

  it("carries a URL-mode elicitation with its elicitationId, and the other asks unchanged", () => {
    const url = Legacy.fromInputRequest(
      { method: "elicitation/create", params: { mode: "url", message: "Sign in", url: "https://example.com/a" } },
      7,
      "e-1"
    )
    legacy("ElicitRequest", url)
    expect((url.params as { elicitationId: string }).elicitationId).toBe("e-1")
    Schema.decodeUnknownSync(Legacy.ServerRequest)(url)
    const roots = Legacy.fromInputRequest({ method: "roots/list" }, "r1")
    legacy("ListRootsRequest", roots)
    const sampling = Legacy.fromInputRequest({
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 }
    }, 3)
    legacy("CreateMessageRequest", sampling)
    legacy("ElicitationCompleteNotification", {
      jsonrpc: "2.0",
      method: "notifications/elicitation/complete",
      params: { elicitationId: "e-1" }
    })
  })

  it("decodes the legacy-only utilities", () => {
    const setLevel = { jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "info" } }
    legacy("SetLevelRequest", setLevel)
    Schema.decodeUnknownSync(Legacy.SetLevelRequest)(setLevel)
    expect(() => Schema.decodeUnknownSync(Legacy.SetLevelRequest)({ ...setLevel, params: { level: "loud" } })).toThrow()
    const subscribe = { jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: "test://x" } }
    legacy("SubscribeRequest", subscribe)
    Schema.decodeUnknownSync(Legacy.SubscribeRequest)(subscribe)
    legacy(
      "RootsListChangedNotification",
      Schema.decodeUnknownSync(Legacy.RootsListChangedNotification)({
        jsonrpc: "2.0",
        method: "notifications/roots/list_changed"
      })
    )
    legacy("InitializedNotification", { jsonrpc: "2.0", method: "notifications/initialized" })
    legacy("PingRequest", Schema.decodeUnknownSync(Legacy.PingRequest)({ jsonrpc: "2.0", id: 9, method: "ping" }))
  })
})
