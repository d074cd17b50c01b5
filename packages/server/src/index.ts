/**
 * `@mrtr/server`: an MCP 2026-07-28 server runtime whose tool, prompt and
 * resource handlers ask in direct style (MRTR), with Streamable HTTP, stdio
 * and in-memory transports.
 *
 * @since 0.1.0
 */

/** @since 0.5.0 */
export * as AiToolkit from "./AiToolkit.ts"
/** @since 0.1.0 */
export * as Authorization from "./Authorization.ts"
/**
 * The Streamable HTTP server transport. A file that imports `@mrtr/client`'s
 * `HttpTransport` too renames one of them:
 * `import { HttpTransport as HttpServerTransport } from "@mrtr/server"`.
 *
 * @since 0.1.0
 */
export * as HttpTransport from "./HttpTransport.ts"
/** @since 0.1.0 */
export * as InteractionPage from "./InteractionPage.ts"
/** @since 0.1.0 */
export * from "./McpHandler.ts"
/** @since 0.1.0 */
export * as McpServer from "./McpServer.ts"
/** @since 0.1.0 */
export * as MemoryTransport from "./MemoryTransport.ts"
/** @since 0.1.0 */
export * as NotificationBus from "./NotificationBus.ts"
/** @since 0.1.0 */
export * as Observability from "./Observability.ts"
/** @since 0.1.0 */
export * as Prompt from "./Prompt.ts"
/** @since 0.1.0 */
export * as RequestContext from "./RequestContext.ts"
/** @since 0.1.0 */
export * as Resource from "./Resource.ts"
/** @since 0.2.0 */
export * as SessionDirectory from "./SessionDirectory.ts"
/** @since 0.1.0 */
export * as StdioTransport from "./StdioTransport.ts"
/** @since 0.5.0 */
export * as TaskSource from "./TaskSource.ts"
/** @since 0.1.0 */
export * as TaskStore from "./TaskStore.ts"
/** @since 0.1.0 */
export * as Tool from "./Tool.ts"
/** @since 0.1.0 */
export * as Transport from "./Transport.ts"
/** @since 0.1.0 */
export * as HttpStatus from "./HttpStatus.ts"
/** @since 0.1.0 */
export * as ToolError from "./ToolError.ts"
/** @since 0.1.0 */
export * as Mount from "./Mount.ts"
