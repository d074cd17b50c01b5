/** Installs `hooks.mjs` (see there): `node --import ./examples/agent/compat/register.mjs ...`. */
import { register } from "node:module"

register("./hooks.mjs", import.meta.url)
