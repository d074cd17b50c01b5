/**
 * The testing fixture server on stdio, for the end-to-end stdio test
 * (spawned with `node --import tsx`).
 */
import { StdioTransport } from "@mrtr/server"
import { server } from "./fixtures.ts"

StdioTransport.main(server)
