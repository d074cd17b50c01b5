import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.ts"

// vitest 5's reporter calls Map.groupBy (Node 22+) when it reports a failure; the machines run Node 20.
if (typeof (Map as { groupBy?: unknown }).groupBy !== "function") {
  ;(Map as unknown as { groupBy: <K, V>(items: Iterable<V>, key: (item: V, index: number) => K) => Map<K, Array<V>> })
    .groupBy = (items, key) => {
      const groups = new Map()
      let index = 0
      for (const item of items) {
        const k = key(item, index++)
        const group = groups.get(k)
        if (group === undefined) groups.set(k, [item])
        else group.push(item)
      }
      return groups
    }
}

export default defineConfig({
  test: {
    projects
  }
})
