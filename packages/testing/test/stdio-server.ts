/**
 * The testing fixture server on stdio, for the end-to-end stdio test
 * (spawned with `node --import tsx`).
 */
import { NodeRuntime, NodeStdio } from "@effect/platform-node"
import { Effect } from "effect"
import { StdioTransport } from "@mrtr/server"
import { server } from "./fixtures.ts"

StdioTransport.serve().pipe(Effect.provide(NodeStdio.layer), Effect.provide(server), NodeRuntime.runMain)
