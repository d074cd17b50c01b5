/**
 * The demo server over stdio: `node --conditions=@mrtr/source --import tsx examples/demo/stdio.ts`.
 * Serves both eras on one process: 2026-07-28 requests (with `_meta`) and a
 * 2025-11-25 session opened by `initialize`, whose asks travel as
 * server-to-client requests on stdout.
 */
import { StdioTransport } from "@mrtr/server"
import { layer } from "./server.ts"

StdioTransport.main(layer)
