/**
 * `@mrtr/client`: an MCP client for Effect that drives Multi Round-Trip
 * Requests (`input_required`) automatically, with user input supplied as
 * services (`ElicitationHandler`, `SamplingHandler`, `RootsHandler`) and
 * transports for Streamable HTTP, stdio and in-memory. It speaks 2026-07-28
 * and, detected by default, 2025-11-25 (answering the server's in-flight
 * requests with the same services).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Authorization from "./Authorization.ts"
/** @since 0.1.0 */
export * as ClientTransport from "./ClientTransport.ts"
/** @since 0.1.0 */
export * as ElicitationHandler from "./ElicitationHandler.ts"
/** @since 0.1.0 */
export * as Errors from "./Errors.ts"
/** @since 0.1.0 */
export * as HttpTransport from "./HttpTransport.ts"
/** @since 0.1.0 */
export * as InputContext from "./InputContext.ts"
/** @since 0.1.0 */
export * as LanguageModelSampling from "./LanguageModelSampling.ts"
/** @since 0.1.0 */
export * as McpClient from "./McpClient.ts"
/** @since 0.1.0 */
export * as McpToolkit from "./McpToolkit.ts"
/** @since 0.1.0 */
export * as Refusal from "./Refusal.ts"
/** @since 0.1.0 */
export * as MemoryTransport from "./MemoryTransport.ts"
/** @since 0.1.0 */
export * as RootsHandler from "./RootsHandler.ts"
/** @since 0.1.0 */
export * as SamplingHandler from "./SamplingHandler.ts"
/** @since 0.1.0 */
export * as StdioTransport from "./StdioTransport.ts"
/** @since 0.1.0 */
export * as TokenStore from "./TokenStore.ts"
/** @since 0.1.0 */
export * as TaskDriver from "./TaskDriver.ts"
