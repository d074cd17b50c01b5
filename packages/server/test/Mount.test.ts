import { describe, expect, it } from "@effect/vitest"
import { RequestState } from "@mrtr/core"
import { validateWire } from "@mrtr/test-support/wire"
import { Context, Effect, Exit, Fiber, Layer, Stream } from "effect"
import { McpServer, Mount, Tool, type Transport } from "../src/index.ts"
import { file, greet, keys, readme, request, topic } from "./fixtures.ts"

const handle = (message: unknown, principal?: string) =>
  McpServer.McpServer.use((server) => server.handle({ message, ...(principal === undefined ? {} : { principal }) }))

const body = (reply: Transport.Reply) => {
  if (reply._tag !== "Response") throw new Error(`expected a response, got ${reply._tag}`)
  return reply.message as Record<string, any>
}
const result = (reply: Transport.Reply) => {
  const message = body(reply)
  expect(message.error).toBeUndefined()
  return message.result as Record<string, any>
}

const base = McpServer.layer({
  name: "parent",
  version: "1.0.0",
  requestState: RequestState.RequestStateCodec.layer({
    keyRing: RequestState.KeyRing.fromBytes(keys.map((bytes) => ({ bytes })))
  }).pipe(Layer.orDie)
})

const readOnly = Tool.make("lookup", { annotations: { readOnlyHint: true }, handler: () => Effect.succeed("found") })
const writes = Tool.make("write_note", {
  annotations: { readOnlyHint: false },
  handler: () => Effect.succeed("written")
})
const ping = Tool.make("ping", { handler: () => Effect.succeed("pong") })

const mounted = Layer.mergeAll(
  McpServer.tools(greet, readOnly, writes),
  McpServer.prompts(topic),
  McpServer.resources(readme, file)
)

const names = (listed: Record<string, any>, key: string, field = "name") => listed[key].map((item: any) => item[field])

describe("McpServer.mount", () => {
  const layer = Layer.mergeAll(McpServer.tools(ping), McpServer.mount("notes", mounted)).pipe(Layer.provideMerge(base))

  it.effect("serves the mounted tools, prompts, resources and templates under the namespace", () =>
    Effect.gen(function*() {
      const tools = result(yield* handle(request("tools/list")))
      validateWire("ListToolsResult", tools)
      expect(names(tools, "tools").sort()).toEqual(["notes_greet", "notes_lookup", "notes_write_note", "ping"])
      expect(names(result(yield* handle(request("prompts/list"))), "prompts")).toEqual(["notes_topic"])
      const resources = result(yield* handle(request("resources/list")))
      validateWire("ListResourcesResult", resources)
      expect(names(resources, "resources", "uri")).toEqual(["test://notes/readme"])
      expect(names(result(yield* handle(request("resources/templates/list"))), "resourceTemplates", "uriTemplate"))
        .toEqual(["test://notes/files/{+path}"])
    }).pipe(Effect.provide(layer)))

  it.effect("a mounted handler asks as it always does: input_required, then the retry completes", () =>
    Effect.gen(function*() {
      const first = result(yield* handle(request("tools/call", { name: "notes_greet", arguments: { greeting: "Hi" } })))
      validateWire("InputRequiredResult", first)
      expect(Object.keys(first.inputRequests)).toEqual(["name"])
      const done = result(
        yield* handle(request("tools/call", {
          name: "notes_greet",
          arguments: { greeting: "Hi" },
          inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
          requestState: first.requestState
        }))
      )
      expect(done.content).toEqual([{ type: "text", text: "Hi, Ada!" }])
      // the original name is not served
      const unknown = body(yield* handle(request("tools/call", { name: "greet", arguments: { greeting: "Hi" } })))
      expect(unknown.error.code).toBe(-32602)
    }).pipe(Effect.provide(layer)))

  it.effect("resource URIs are namespaced reversibly: reads reach the mounted resource, contents carry the served URI", () =>
    Effect.gen(function*() {
      const read = result(yield* handle(request("resources/read", { uri: "test://notes/readme" })))
      expect(read.contents).toEqual([{ uri: "test://notes/readme", mimeType: "text/plain", text: "hello" }])
      const templated = result(yield* handle(request("resources/read", { uri: "test://notes/files/a/b.txt" })))
      expect(templated.resultType).toBe("input_required")
      const done = result(
        yield* handle(request("resources/read", {
          uri: "test://notes/files/a/b.txt",
          inputResponses: { roots: { roots: [{ uri: "file:///home" }] } },
          requestState: templated.requestState
        }))
      )
      expect(done.contents).toEqual([{
        uri: "test://notes/files/a/b.txt",
        mimeType: "text/plain",
        text: "a/b.txt under file:///home"
      }])
      const missing = body(yield* handle(request("resources/read", { uri: "test://readme" })))
      expect(missing.error.code).toBe(-32602)
    }).pipe(Effect.provide(layer)))

  it("namespaceUri and stripUri are inverse", () => {
    for (const uri of ["test://readme", "file:///etc/hosts", "urn:isbn:123", "relative/path", "s3://bucket/{key}"]) {
      const served = Mount.namespaceUri("ns", uri)
      expect(served).not.toBe(uri)
      expect(Mount.stripUri("ns", served)).toBe(uri)
    }
    expect(Mount.stripUri("ns", "test://other/readme")).toBeUndefined()
    expect(Mount.namespaceName("ns", "tool", "__")).toBe("ns__tool")
  })

  it.effect("include / exclude by name, glob and annotations apply to the lists and to the calls", () =>
    Effect.gen(function*() {
      const tools = result(yield* handle(request("tools/list")))
      expect(names(tools, "tools").sort()).toEqual(["n.greet", "n.lookup"])
      const refused = body(yield* handle(request("tools/call", { name: "n.write_note" })))
      expect(refused.error.code).toBe(-32602)
      expect(refused.error.message).toContain("Unknown tool")
      expect(result(yield* handle(request("tools/call", { name: "n.lookup" }))).content[0].text).toBe("found")
      expect(names(result(yield* handle(request("prompts/list"))), "prompts")).toEqual([])
      expect(names(result(yield* handle(request("resources/list"))), "resources", "uri")).toEqual(["test://n/readme"])
      expect(result(yield* handle(request("resources/templates/list"))).resourceTemplates).toEqual([])
    }).pipe(Effect.provide(
      McpServer.mount("n", mounted, {
        separator: ".",
        include: ["gr*", { annotations: { readOnlyHint: true } }, "test://read?e"],
        exclude: ["write_*"]
      }).pipe(Layer.provideMerge(base))
    )))

  it.effect("visible: each principal sees and calls only what the predicate allows", () =>
    Effect.gen(function*() {
      const adaTools = names(result(yield* handle(request("tools/list"), "ada")), "tools").sort()
      expect(adaTools).toEqual(["notes_greet", "notes_lookup", "notes_write_note"])
      const bobTools = names(result(yield* handle(request("tools/list"), "bob")), "tools").sort()
      expect(bobTools).toEqual(["notes_greet", "notes_lookup"])
      expect(names(result(yield* handle(request("tools/list"))), "tools").sort()).toEqual([
        "notes_greet",
        "notes_lookup"
      ])
      const refused = body(yield* handle(request("tools/call", { name: "notes_write_note" }), "bob"))
      expect(refused.error).toMatchObject({ code: -32602, message: "Unknown tool: notes_write_note" })
      const allowed = result(yield* handle(request("tools/call", { name: "notes_write_note" }), "ada"))
      expect(allowed.content[0].text).toBe("written")
      // resources: hidden from the list and unreadable
      expect(result(yield* handle(request("resources/list"), "bob")).resources).toEqual([])
      expect(body(yield* handle(request("resources/read", { uri: "test://notes/readme" }), "bob")).error.code).toBe(
        -32602
      )
      expect(result(yield* handle(request("resources/read", { uri: "test://notes/readme" }), "ada")).contents)
        .toHaveLength(1)
    }).pipe(Effect.provide(
      McpServer.mount("notes", mounted, {
        visible: (principal, item) =>
          principal === "ada" || (item.kind === "tool" && item.annotations?.readOnlyHint !== false)
      }).pipe(Layer.provideMerge(base))
    )))

  it.effect("a name registered by two sources fails the Layer with NameCollision naming both", () =>
    Effect.gen(function*() {
      const twice: any = yield* Layer.build(
        Layer.mergeAll(McpServer.mount("a", McpServer.tools(ping)), McpServer.mount("a", McpServer.tools(ping, greet)))
          .pipe(Layer.provideMerge(base))
      ).pipe(Effect.scoped, Effect.flip) as Effect.Effect<unknown>
      expect(twice).toBeInstanceOf(Mount.NameCollision)
      expect(twice).toMatchObject({ kind: "tool", name: "a_ping" })
      expect((twice as Mount.NameCollision).sources).toEqual(["mount \"a\"", "mount \"a\""])

      const ownFirst: any = yield* Layer.build(
        McpServer.mount("x", McpServer.tools(ping)).pipe(
          Layer.provideMerge(McpServer.tools(Tool.make("x_ping", { handler: () => Effect.succeed("mine") }))),
          Layer.provideMerge(base)
        )
      ).pipe(Effect.scoped, Effect.flip) as Effect.Effect<unknown>
      expect(ownFirst).toMatchObject({ _tag: "NameCollision", kind: "tool", name: "x_ping" })
      expect((ownFirst as Mount.NameCollision).sources).toEqual(["the server's own registrations", "mount \"x\""])
      expect(ownFirst.message).toContain("mount \"x\"")

      const mountFirst = yield* Layer.build(
        McpServer.tools(Tool.make("x_ping", { handler: () => Effect.succeed("mine") })).pipe(
          Layer.provideMerge(McpServer.mount("x", McpServer.tools(ping))),
          Layer.provideMerge(base)
        )
      ).pipe(Effect.scoped, Effect.flip) as Effect.Effect<unknown>
      expect((mountFirst as Mount.NameCollision).sources).toEqual(["mount \"x\"", "the server's own registrations"])

      // resources collide by URI
      const uris = yield* Layer.build(
        Layer.mergeAll(
          McpServer.mount("y", McpServer.resources(readme)),
          McpServer.mount("y", McpServer.resources(readme))
        )
          .pipe(Layer.provideMerge(base))
      ).pipe(Effect.scoped, Effect.exit) as Effect.Effect<Exit.Exit<unknown, unknown>>
      expect(Exit.isFailure(uris)).toBe(true)
    }))

  it.live("a tool the mounted server adds later is served and announced to the parent's list_changed listeners", () =>
    Effect.gen(function*() {
      const reply = yield* handle(request("subscriptions/listen", { notifications: { toolsListChanged: true } }))
      if (reply._tag !== "Stream") throw new Error("expected a stream")
      const collected = yield* reply.messages.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      const view = yield* Captured
      // The stream subscribes to changes once its acknowledgement is pulled: add until one is heard.
      const adding = yield* view.addTool(Tool.make("late", { handler: () => Effect.succeed("here") })).pipe(
        Effect.andThen(Effect.sleep("20 millis")),
        Effect.forever,
        Effect.forkChild
      )
      const messages: Array<any> = Array.from(yield* Fiber.join(collected))
      yield* Fiber.interrupt(adding)
      expect(messages[1].method).toBe("notifications/tools/list_changed")
      expect(names(result(yield* handle(request("tools/list"))), "tools")).toContain("live_late")
      expect(result(yield* handle(request("tools/call", { name: "live_late" }))).content[0].text).toBe("here")
      yield* view.removeTool("late")
      expect(names(result(yield* handle(request("tools/list"))), "tools")).not.toContain("live_late")
    }).pipe(Effect.provide(
      McpServer.mount("live", captureLayer).pipe(Layer.provideMerge(base))
    )))
})

// A mounted "server" that keeps its McpServer (the mount's view) to register more later.
class Captured extends Context.Service<Captured, McpServer.McpServer["Service"]>()("test/Captured") {}
const captureLayer = Layer.effect(Captured, McpServer.McpServer.use(Effect.succeed))
