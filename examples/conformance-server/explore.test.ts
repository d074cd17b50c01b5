/**
 * The conformance fixture's asking tools and prompt, explored
 * (`@mrtr/testing/explore`) in both eras and, for the task fixtures, as tasks:
 * no defect, the determinism replay, each step once, every message against the
 * official JSON Schemas. The fixtures answer exactly what the conformance
 * suite expects, so a "no" they do not catch is allowed (`uncaughtDeclines`).
 */
import { McpServer } from "@mrtr/server"
import * as Explore from "@mrtr/testing/explore"
import { Layer } from "effect"
import * as Everything from "./everything.ts"
import * as Mrtr from "./mrtr.ts"
import * as Tasks from "./tasks.ts"

// The fixtures of `index.ts` (which serves them when imported), with tasks polled every 20 ms.
const server = Layer.mergeAll(
  McpServer.tools(...Mrtr.tools, ...Everything.tools, ...Tasks.tools),
  McpServer.prompts(Mrtr.prompt)
).pipe(
  Layer.provideMerge(
    McpServer.layer({ name: "mrtr-conformance-server", version: "0.1.0", tasks: { pollIntervalMs: 20 } })
  )
)

const common = { server, runs: 15, uncaughtDeclines: "allow" as const }

for (
  const tool of [
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums"
  ]
) Explore.it(tool, { ...common, seed: 1 })

Explore.it("test_sampling", { ...common, arguments: { prompt: "Say hi" }, seed: 2 })
Explore.it("test_elicitation", { ...common, arguments: { message: "Who are you?" }, seed: 3 })
Explore.it("test_input_required_result_prompt", { ...common, prompt: "test_input_required_result_prompt", seed: 4 })
Explore.it("confirm_delete", { ...common, arguments: { filename: "a.txt" }, modes: ["task"], seed: 5, runs: 8 })
Explore.it("multi_input", { ...common, modes: ["task"], seed: 6, runs: 8 })
Explore.it("test_tool_with_task", { ...common, modes: ["task"], seed: 7, runs: 8 })
