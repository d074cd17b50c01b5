/**
 * The demo server over stdio: `node --conditions=@mrtr/source --import tsx examples/demo/stdio.ts`.
 * Serves both eras on one process: 2026-07-28 requests (with `_meta`) and a
 * 2025-11-25 session opened by `initialize`, whose asks travel as
 * server-to-client requests on stdout. The interaction page of
 * `link_rail_account` (a secure elicitation) is served on a free port of
 * 127.0.0.1 of its own (`InteractionPage.serve`); the demo acknowledges a single user
 * (`singleUserPage`): a stdio server is started by, and for, the person at this machine.
 */
import { InteractionPage, StdioTransport } from "@mrtr/server"
import { Layer } from "effect"
import { layer } from "./server.ts"

StdioTransport.main(InteractionPage.serve({ port: 0 }).pipe(Layer.provideMerge(layer)))
