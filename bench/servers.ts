/**
 * The servers of `bench/index.ts`, one per child process:
 *
 *   node --expose-gc <servers.ts compiled by bench/index.ts> <kind>
 *   node --expose-gc --conditions=@mrtr/source --import tsx bench/servers.ts <kind>      (uncompiled)
 *
 * Each serves the same two-round elicitation tool `greet` on
 * `http://127.0.0.1:<ephemeral>/mcp` (ours and official also `ask_n`, N
 * questions in N rounds, for the growth table):
 *
 * - round 1 (`tools/call` without `inputResponses`): `input_required` with one
 *   form elicitation under the key `name` (`{ name: string }`) and a `requestState`;
 * - round 2 (`inputResponses.name = { action: "accept", content: { name } }` and
 *   the echoed `requestState`): complete with the text `Hello, <name>!`.
 *
 * Kinds:
 * - `ours`: this project's runtime (`Tool.make` + `Elicitation.form`, sealed
 *   replay journal, `HttpTransport.layer`); single use off; it also serves the
 *   2025-11-25 wire (the shim, on by default);
 * - `ours-auth`: the same with `Authorization.layer` + `Authorization.jwt`
 *   against a JWKS this process serves on another port (ES256, `jose`); the
 *   token it signs for its own resource URI goes to the parent with `ready`;
 * - `ours-single-memory`, `ours-single-redis`: single use on, with the
 *   in-memory guard, or the Redis one (`MRTR_REDIS_URL` set by the parent);
 * - `official`: `@modelcontextprotocol/server` 2.x written as its v2 docs and
 *   `examples/mrtr/server.ts` recommend (see `startOfficial`);
 * - `effect-ai`: the same tool written by hand on effect's own `effect/ai`
 *   `McpServer` (`McpServer.layerHttp` with `McpProtocol.v2026_07_28`), returning
 *   `McpSchema.InputRequired` with an HMAC-SHA256 `requestState` as a
 *   hand-written handler would;
 * - `bare`: `node:http` answering with fixed JSON (the floor);
 * - `effect-http-floor`, `transport-floor`: reference floors, the fixed JSON
 *   answered by effect/http alone and by our `HttpTransport` in front of a
 *   dispatcher that does nothing else.
 *
 * IPC with the parent: the child sends `{ type: "ready", url, token? }`
 * (`token`: the bearer token of `ours-auth`). On `{ type: "cpu" }` it answers
 * `{ type: "cpu", cpuMicros, jwksFetches }` (user + system CPU of the process
 * so far; JWKS requests served so far); on `{ type: "stats" }` it runs two forced GCs
 * (`--expose-gc`) and answers `{ type: "stats", heapUsed, rss, cpuMicros }`.
 * Nothing else runs in the child, so its heap and CPU are the server's.
 */
import { NodeHttpServer } from "@effect/platform-node"
import {
  localhostHostValidation,
  localhostOriginValidation,
  type NodeIncomingMessageLike,
  toNodeHandler
} from "@modelcontextprotocol/node"
import {
  acceptedContent,
  type CallToolResult,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  type InputRequiredResult,
  McpServer as OfficialMcpServer
} from "@modelcontextprotocol/server"
import { Elicitation, RequestState } from "@mrtr/core"
import { Authorization, HttpTransport, McpServer, Tool } from "@mrtr/server"
import { Context, Effect, Layer, Schema } from "effect"
import { McpProtocol, McpSchema, McpServer as AiMcpServer } from "effect/ai"
import { HttpRouter, HttpServer } from "effect/http"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as z from "zod/v4"
import { launch, NAME_SCHEMA, startBare, startEffectHttpFloor, startTransportFloor } from "./floors.ts"
import { greet } from "./greet.ts"

export type ServerKind =
  | "ours"
  | "official"
  | "effect-ai"
  | "bare"
  | "effect-http-floor"
  | "transport-floor"
  | "ours-auth"
  | "ours-single-memory"
  | "ours-single-redis"

// -----------------------------------------------------------------------------
// (a) ours
// -----------------------------------------------------------------------------

/**
 * `ask_n` (`{ n }`): asks `n` form questions, one per round (`q0` ... `q<n-1>`,
 * each `{ answer: string }`), then answers their answers joined by spaces.
 */
const askN = Tool.make("ask_n", {
  description: "Asks n questions, one per round",
  parameters: Schema.Struct({ n: Schema.Number }),
  handler: ({ n }) =>
    Effect.gen(function*() {
      const answers: Array<string> = []
      for (let i = 0; i < n; i++) {
        const { answer } = yield* Elicitation.form({ key: `q${i}`, message: `Question ${i}?`, schema: Answer })
        answers.push(answer)
      }
      return answers.join(" ")
    })
})

const Answer = Schema.Struct({ answer: Schema.String })

/** Options of our server per kind: single use (in memory, or on the Redis of `MRTR_REDIS_URL`), authorization. */
const startOurs = (kind: "ours" | "ours-auth" | "ours-single-memory" | "ours-single-redis"): Promise<string> => {
  const singleUse = kind === "ours-single-memory" || kind === "ours-single-redis"
  const server = Layer.mergeAll(McpServer.tools(greet, askN)).pipe(
    Layer.provideMerge(McpServer.layer({
      name: "bench-ours",
      version: "1.0.0",
      requestState: {
        keyRing: RequestState.KeyRing.fromBytes([{ id: "bench", bytes: randomBytes(32) }]),
        singleUse
      },
      // Imported only for this kind, so the other servers' memory does not count the redis client.
      ...(kind === "ours-single-redis"
        ? {
          shared: Layer.unwrap(
            Effect.promise(() => import("@mrtr/server/Redis")).pipe(Effect.map((Redis) => Redis.layerFleetConfig()))
          )
        }
        : {})
    }))
  )
  if (kind !== "ours-auth") {
    const app = HttpTransport.layer({ port: 0 }).pipe(Layer.provide(server), Layer.orDie)
    return launch(app, HttpTransport.url)
  }
  return startJwks().then((jwks) => {
    const app = HttpTransport.layer({ port: 0 }).pipe(
      Layer.provide(
        Authorization.layer({ verifier: Authorization.jwt({ issuer: jwks.issuer, jwksUri: jwks.jwksUri }) })
      ),
      Layer.provide(server),
      Layer.orDie
    )
    return launch(app, HttpTransport.url).then(async (url) => {
      token = await jwks.sign(url)
      return url
    })
  })
}

/** The access token of `ours-auth` (sent to the parent with `ready`). */
let token: string | undefined
/** How many times the JWKS was fetched (reported with `cpu`: key caching means once). */
let jwksFetches = 0

/**
 * A local authorization server's JWKS (one ES256 key, on node:http) and a
 * signer of RFC 9068 access tokens for the resource at `audience` (1 hour).
 */
const startJwks = async () => {
  const Jose = await import("jose")
  const { privateKey, publicKey } = await Jose.generateKeyPair("ES256", { extractable: true })
  const jwk = { ...(await Jose.exportJWK(publicKey)), kid: "bench", alg: "ES256", use: "sig" }
  const body = JSON.stringify({ keys: [jwk] })
  const server = createServer((_request, response) => {
    jwksFetches++
    response.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=600" })
    response.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    sign: (audience: string) =>
      new Jose.SignJWT({ scope: "mcp:basic", client_id: "bench" })
        .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "bench" })
        .setIssuer(issuer)
        .setSubject("bench-user")
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(privateKey)
  }
}

// -----------------------------------------------------------------------------
// (b) effect/ai, by hand
// -----------------------------------------------------------------------------

const hmacKey = randomBytes(32)
const sign = (payload: string) => createHmac("sha256", hmacKey).update(payload).digest("base64url")

/** `base64url(JSON{tool, exp}).hmac`: what a hand-written handler would hand out. */
const makeState = () => {
  const payload = Buffer.from(JSON.stringify({ tool: "greet", exp: Date.now() + 600_000 })).toString("base64url")
  return `${payload}.${sign(payload)}`
}

const verifyState = (state: string): boolean => {
  const dot = state.indexOf(".")
  if (dot < 0) return false
  const payload = state.slice(0, dot)
  const expected = Buffer.from(sign(payload))
  const actual = Buffer.from(state.slice(dot + 1))
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return false
  try {
    const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { tool?: unknown; exp?: unknown }
    return decoded.tool === "greet" && typeof decoded.exp === "number" && decoded.exp > Date.now()
  } catch {
    return false
  }
}

const askName = () =>
  new McpSchema.InputRequired({
    inputRequests: {
      name: {
        method: "elicitation/create",
        params: { mode: "form", message: "Your name?", requestedSchema: NAME_SCHEMA }
      }
    },
    requestState: makeState()
  })

const effectAiGreet = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* AiMcpServer.McpServer
  yield* server.addTool({
    tool: new McpSchema.Tool({
      name: "greet",
      description: "Asks for a name, then greets",
      inputSchema: { type: "object", properties: {} }
    }),
    annotations: Context.empty(),
    // #region effect-ai-greet
    handle: () =>
      Effect.gen(function*() {
        const context = yield* McpSchema.McpRequestContext
        const answer = context.inputResponses?.["name"]
        if (answer === undefined) return askName()
        if (context.requestState !== undefined && !verifyState(context.requestState)) {
          return yield* new McpSchema.InvalidParams({ message: "Invalid requestState" })
        }
        const content = answer["content"] as { readonly name?: unknown } | undefined
        if (answer["action"] !== "accept" || typeof content?.name !== "string") return askName()
        return new McpSchema.CallToolResult({ content: [{ type: "text", text: `Hello, ${content.name}!` }] })
      })
    // #endregion effect-ai-greet
  })
}))

const startEffectAi = (): Promise<string> => {
  const mcp = AiMcpServer.layerHttp({
    name: "bench-effect-ai",
    version: "1.0.0",
    path: "/mcp",
    protocols: [McpProtocol.v2026_07_28],
    registrations: effectAiGreet
  })
  const app = HttpRouter.serve(mcp, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.orDie
  )
  return launch(
    app,
    Effect.map(HttpServer.HttpServer, (server) => `${HttpServer.formatAddress(server.address)}/mcp`)
  )
}

// -----------------------------------------------------------------------------
// (c) bare node:http
// -----------------------------------------------------------------------------

// `startBare` in ./floors.ts.

// -----------------------------------------------------------------------------
// (d) the official SDK, @modelcontextprotocol/server 2.x, as its v2 docs recommend
// -----------------------------------------------------------------------------

/**
 * As the official `examples/mrtr/server.ts` and the v2 serving guide
 * (docs/serving/http.md) write it: `createMcpHandler` with a factory building
 * a fresh `McpServer` per request, `toNodeHandler` on plain `node:http` behind
 * `localhostHostValidation` / `localhostOriginValidation`, the handler
 * returning `inputRequired({ inputRequests: { name: inputRequired.elicit(...) },
 * requestState })` and reading the answer with `acceptedContent`, the state
 * minted by `createRequestStateCodec` (HMAC-SHA256, 10 minutes) whose
 * `verify` is the server's `requestState.verify` hook.
 */
const officialCodec = createRequestStateCodec<{ readonly answers: ReadonlyArray<string> }>({
  key: randomBytes(32),
  ttlSeconds: 600
})

const buildOfficial = (): OfficialMcpServer => {
  const server = new OfficialMcpServer(
    { name: "bench-official", version: "1.0.0" },
    { capabilities: { tools: {} }, requestState: { verify: officialCodec.verify } }
  )
  // #region official-greet
  server.registerTool(
    "greet",
    { description: "Asks for a name, then greets" },
    async (ctx): Promise<CallToolResult | InputRequiredResult> => {
      const answer = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "name")
      if (typeof answer?.name !== "string") {
        return inputRequired({
          inputRequests: {
            name: inputRequired.elicit({ message: "Your name?", requestedSchema: NAME_SCHEMA_MUTABLE })
          },
          requestState: await officialCodec.mint({ answers: [] })
        })
      }
      return { content: [{ type: "text", text: `Hello, ${answer.name}!` }] }
    }
  )
  // #endregion official-greet
  server.registerTool(
    "ask_n",
    { description: "Asks n questions, one per round", inputSchema: z.object({ n: z.number() }) },
    async ({ n }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      // The answers so far travel in the (verified) state; this round's answer in inputResponses.
      const answers = [...(ctx.mcpReq.requestState<{ answers: Array<string> }>()?.answers ?? [])]
      const answer = acceptedContent<{ answer: string }>(ctx.mcpReq.inputResponses, `q${answers.length}`)
      if (typeof answer?.answer === "string") answers.push(answer.answer)
      if (answers.length >= n) return { content: [{ type: "text", text: answers.join(" ") }] }
      return inputRequired({
        inputRequests: {
          [`q${answers.length}`]: inputRequired.elicit({
            message: `Question ${answers.length}?`,
            requestedSchema: ANSWER_SCHEMA
          })
        },
        requestState: await officialCodec.mint({ answers })
      })
    }
  )
  return server
}

const NAME_SCHEMA_MUTABLE = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"]
}
const ANSWER_SCHEMA = {
  type: "object" as const,
  properties: { answer: { type: "string" as const } },
  required: ["answer"]
}

const startOfficial = (): Promise<string> =>
  new Promise((resolve) => {
    const nodeHandler = toNodeHandler(createMcpHandler(buildOfficial))
    const validateHost = localhostHostValidation()
    const validateOrigin = localhostOriginValidation()
    const server = createServer((req, res) => {
      if (!validateHost(req, res) || !validateOrigin(req, res)) return
      // (the published NodeIncomingMessageLike's `method?: string` rejects IncomingMessage under exactOptionalPropertyTypes)
      void nodeHandler(req as NodeIncomingMessageLike, res)
    })
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`))
  })

// -----------------------------------------------------------------------------
// Process plumbing
// -----------------------------------------------------------------------------

// -----------------------------------------------------------------------------
// Reference floors (not targets): what the HTTP layers cost without MCP logic
// -----------------------------------------------------------------------------

// `startEffectHttpFloor`, `startTransportFloor` in ./floors.ts.

const start = (kind: ServerKind): Promise<string> => {
  switch (kind) {
    case "ours":
    case "ours-auth":
    case "ours-single-memory":
    case "ours-single-redis":
      return startOurs(kind)
    case "official":
      return startOfficial()
    case "effect-ai":
      return startEffectAi()
    case "bare":
      return startBare()
    case "effect-http-floor":
      return startEffectHttpFloor()
    case "transport-floor":
      return startTransportFloor()
  }
}

const gc = (globalThis as { gc?: () => void }).gc

/**
 * The V8 CPU profiler of this process (`node:inspector`), for `--profile`:
 * `profile-start` starts sampling (every 500 µs); `profile-stop` writes the
 * `.cpuprofile` to `path` and answers `{ type: "profile", path }`. Only the
 * load window is profiled, not the start-up.
 */
const profiler = (() => {
  let session: import("node:inspector").Session | undefined
  return (type: "profile-start" | "profile-stop", path: string | undefined) => {
    void import("node:inspector").then(async (inspector) => {
      if (type === "profile-start") {
        session = new inspector.Session()
        session.connect()
        const post = (method: string, params?: object) =>
          new Promise<void>((resolve) => session!.post(method, params ?? {}, () => resolve()))
        await post("Profiler.enable")
        await post("Profiler.setSamplingInterval", { interval: 500 })
        await post("Profiler.start")
        process.send!({ type: "profile-started" })
        return
      }
      session?.post("Profiler.stop", (error, result) => {
        if (error === null && path !== undefined) writeFileSync(path, JSON.stringify(result.profile))
        session?.disconnect()
        process.send!({ type: "profile", path })
      })
    })
  }
})()

const main = async () => {
  const kind = process.argv[2] as ServerKind
  const url = await start(kind)
  process.on("message", (message: { type?: string; path?: string }) => {
    if (message.type === "profile-start" || message.type === "profile-stop") {
      profiler(message.type, message.path)
      return
    }
    if (message.type === "cpu") {
      const cpu = process.cpuUsage()
      process.send!({ type: "cpu", cpuMicros: cpu.user + cpu.system, jwksFetches })
      return
    }
    if (message.type !== "stats") return
    // Two full collections, a turn of the event loop apart, so finalizers and weak refs settle.
    gc?.()
    setImmediate(() => {
      gc?.()
      const memory = process.memoryUsage()
      const cpu = process.cpuUsage()
      process.send!({ type: "stats", heapUsed: memory.heapUsed, rss: memory.rss, cpuMicros: cpu.user + cpu.system })
    })
  })
  process.on("disconnect", () => process.exit(0))
  process.send!({ type: "ready", url, ...(token === undefined ? {} : { token }) })
}

void main()
