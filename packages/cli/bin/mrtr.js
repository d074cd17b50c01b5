#!/usr/bin/env node
// The `mrtr` command. The repository runs its TypeScript sources directly
// (nothing is compiled), so this launcher registers tsx's loader in this
// process and imports the entry point.
import { register } from "tsx/esm/api"

register()
await import("../src/main.ts")
