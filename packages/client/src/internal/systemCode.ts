/**
 * The Node system error code (`ECONNREFUSED`, `ENOENT`, `EACCES`, ...) of a
 * failure, searched through its `cause` / `reason` chain and the members of
 * an `AggregateError` (Node raises one when every address of a host
 * refused). Effect's `PlatformError` keeps the Node error as
 * `reason.cause`. Bounded depth: a cyclic chain ends the search.
 */
export const systemCode = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== "object" || error === null || depth > 8) return undefined
  const code = (error as { readonly code?: unknown }).code
  if (typeof code === "string" && /^E[A-Z_]+$/.test(code)) return code
  const errors = (error as { readonly errors?: unknown }).errors
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = systemCode(inner, depth + 1)
      if (found !== undefined) return found
    }
  }
  return systemCode((error as { readonly cause?: unknown }).cause, depth + 1) ??
    systemCode((error as { readonly reason?: unknown }).reason, depth + 1)
}
