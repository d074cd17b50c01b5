/**
 * The terminal agent, as a person runs it:
 *
 *   OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_MODEL=qwen3 npm run agent            # the demo in this process
 *   OPENAI_API_KEY=sk-... npm run agent -- --url http://127.0.0.1:3000/mcp              # a server already running
 *
 * The model is configured by `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `OPENAI_MODEL` (see `model.ts`).
 */
import { NodeRuntime, NodeTerminal } from "@effect/platform-node"
import { HttpTransport as ClientHttp } from "@mrtr/client"
import { Effect } from "effect"
import * as Agent from "./agent.ts"
import * as Model from "./model.ts"

// #region main
const urlFlag = process.argv.indexOf("--url")
const transport = urlFlag === -1 ? Agent.demoInProcess : ClientHttp.layerNode({ url: process.argv[urlFlag + 1]! })

Effect.gen(function*() {
  const modelName = yield* Model.modelName
  yield* Agent.session.pipe(Effect.provide(Agent.client(transport, modelName)))
}).pipe(
  Effect.provide(Model.layer),
  Effect.provide(NodeTerminal.layer),
  NodeRuntime.runMain
)
// #endregion main
