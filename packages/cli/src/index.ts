/**
 * `@mrtr/cli`: the `mrtr` command line client, and the pieces it is built
 * from, reusable elsewhere (the demo uses them): terminal prompts that
 * answer a server's input requests, answers files, and the round report.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AnswersFile from "./AnswersFile.ts"
/** @since 0.1.0 */
export * as Cli from "./Cli.ts"
/** @since 0.1.0 */
export * as Report from "./Report.ts"
/** @since 0.1.0 */
export * as TerminalUser from "./TerminalUser.ts"
/** @since 0.1.0 */
export * as Failure from "./Failure.ts"
