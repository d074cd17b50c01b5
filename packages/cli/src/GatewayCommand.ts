/**
 * `mrtr gateway --config <file>`: serves the MCP servers of a Claude
 * Desktop / Cursor / VS Code `mcpServers` file behind one endpoint (see
 * `@mrtr/gateway`'s `Gateway` for the file's reference).
 *
 * Streamable HTTP by default (both eras on one endpoint; `--port`, `--host`
 * override the file's `gateway.port` / `gateway.host`), printing
 * `listening <url>` on stdout once it serves; with `--transport stdio`, MCP on
 * stdin/stdout (so a stdio-only host reaches remote servers through it) and
 * `listening stdio` on stderr, until stdin ends. Logs go to stderr. Over HTTP it runs until interrupted.
 * The file's `gateway.authorization` guards the HTTP endpoint (stdio takes
 * no credentials); `gateway.redis` makes it one instance of a fleet.
 *
 * @since 0.3.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Gateway } from "@mrtr/gateway"
import { HttpTransport, StdioTransport } from "@mrtr/server"
import { Console, Effect, FileSystem, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { UsageError } from "./Failure.ts"

const config = Flag.String("config").pipe(
  Flag.withMetavar("file"),
  Flag.withDescription(
    "The gateway's configuration: {\"mcpServers\": {\"<name>\": {\"command\", \"args\", \"env\"} | {\"url\", \"headers\"}}, " +
      "\"gateway\": {...}} (the file Claude Desktop, Cursor and VS Code use). Per server, optionally: \"namespace\" " +
      "(a string, or false for none; default the server's name, none with a single server), \"include\" / \"exclude\" " +
      "(names, globs, or {\"annotations\": {...}}), \"protocol\" (auto, 2026-07-28, 2025-11-25), \"probeTimeout\" (how long " +
      "auto waits for the server's answer to its probe; default 60 seconds for a command server, from its start, 10 for " +
      "a url one), \"disabled\", and for a url " +
      "server \"oauth\": {\"issuer\", \"clientId\", \"clientSecret\"} (the gateway's own client at that server's authorization server " +
      "issuer, and sent to no other; " +
      "client credentials grant). \"gateway\": \"name\", \"port\" (default 3000), \"host\" (default 127.0.0.1), \"separator\" " +
      "(default _), \"refreshInterval\", \"callTimeout\"; \"requestState\": {\"keys\" (the key ring, as " +
      "MRTR_REQUEST_STATE_KEYS: id:base64url-32-bytes, comma-separated, current first), \"ttl\", \"singleUse\"} (what it leaves " +
      "out comes from MRTR_REQUEST_STATE_KEYS, MRTR_REQUEST_STATE_TTL, MRTR_SINGLE_USE; without keys, a random key per " +
      "process); \"redis\": {\"url\"} (a fleet: shared state and held upstream calls on Redis; every instance the same keys " +
      "and name); \"heldCalls\": {\"max\" (default 1000), \"maxPerPrincipal\" (default 32), \"timeout\" (default the " +
      "requestState TTL)}; \"authorization\": {\"issuer\", \"jwksUri\" | \"introspection\": {\"endpoint\", \"clientId\", " +
      "\"clientSecret\"}, \"resource\", \"requiredScopes\", \"scopesSupported\"} (bearer tokens of the gateway's own callers, " +
      "HTTP only; never passed upstream)."
  )
)

// `--stdio <command>` is every mrtr command's upstream flag: the gateway's own transport is `--transport`.
const transport = Flag.Literals("transport", ["http", "stdio"]).pipe(
  Flag.withDescription("How the gateway serves: Streamable HTTP (both eras, the default) or MCP on stdin/stdout"),
  Flag.withDefault("http" as const)
)

const port = Flag.Int("port").pipe(
  Flag.withDescription("The TCP port to listen on (0 picks a free one); overrides gateway.port"),
  Flag.optional
)

const host = Flag.String("host").pipe(
  Flag.withDescription("The interface to bind; overrides gateway.host"),
  Flag.optional
)

const load = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((error) => new UsageError({ reason: `cannot read --config ${file}: ${error.message}` }))
    )
    return yield* Gateway.parse(text).pipe(
      Effect.mapError((error) => new UsageError({ reason: `${file}: ${error.message}` }))
    )
  }).pipe(Effect.provide(NodeFileSystem.layer))

// A name two upstreams share, a port in use, a malformed MRTR_* variable: said, exit code 2.
const cannotServe = (error: unknown) =>
  new UsageError({ reason: `mrtr gateway cannot serve: ${error instanceof Error ? error.message : String(error)}` })

/**
 * The `gateway` subcommand.
 *
 * @since 0.3.0
 * @category commands
 */
export const gateway = Command.make(
  "gateway",
  { config, transport, port, host },
  Effect.fnUntraced(function*(flags) {
    const settings = yield* load(flags.config)
    const portNumber = Option.getOrElse(flags.port, () => settings.gateway?.port ?? 3000)
    if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535) {
      return yield* new UsageError({ reason: "--port must be an integer between 0 and 65535" })
    }
    const server = Gateway.layer(settings)
    const authorization = Gateway.authorization(settings)
    if (flags.transport === "stdio") {
      // Served as the main effect: the end of stdin ends the gateway (and its upstreams' processes).
      return yield* Effect.gen(function*() {
        yield* Console.error("listening stdio")
        return yield* StdioTransport.serve()
      }).pipe(Effect.provide(Layer.merge(server, NodeStdio.layer)), Effect.mapError(cannotServe))
    }
    return yield* Effect.gen(function*() {
      yield* Console.log(`listening ${yield* HttpTransport.url}`)
      return yield* Effect.never
    }).pipe(
      Effect.provide(
        HttpTransport.layer({
          port: portNumber,
          host: Option.getOrElse(flags.host, () => settings.gateway?.host ?? "127.0.0.1")
        }).pipe(
          Layer.provide(server),
          Layer.provide(authorization ?? Layer.empty)
        )
      ),
      Effect.mapError(cannotServe)
    )
  })
).pipe(
  Command.withDescription(
    "Serve the MCP servers of an mcpServers configuration file behind one endpoint (Streamable HTTP, both eras; or --transport stdio), " +
      "each server's items under its name (unprefixed with a single server), every question their tools ask carried " +
      "to the client across servers and protocol revisions. Prints `listening <url>` once it serves."
  )
)
