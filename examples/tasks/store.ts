/**
 * Tasks: the in-memory task store with its shares written out (they are the defaults), as docs/tasks.md shows them.
 * A server takes it through `McpServer.layer({ shared })`.
 */
import { TaskStore } from "@mrtr/server"

// #region shares
export const store = TaskStore.layerMemory({
  maxTasks: 10_000, // tasks without a principal; and, apart, those of all principals together
  maxTasksPerPrincipal: 1_000, // one principal's, or one client address's when the call has no principal
  maxTaskBytes: 1_048_576, // one task's record (its JSON: arguments, journal, answers)
  maxBytesPerPrincipal: 16_777_216, // one principal's, or one client address's, records together
  maxAnonymousBytes: 67_108_864 // the records of every call without a principal together
})
// #endregion shares
