/**
 * The share of the task store a record counts in (the per-principal and
 * per-address bounds of `TaskStore`): its principal's, else its client
 * address's; `undefined` for neither.
 */

/** The share of `record`: `principal:<sub>`, else `address:<address>`, else `undefined`. */
export const shareOf = (
  record: { readonly call: { readonly principal?: string | undefined; readonly address?: string | undefined } }
): string | undefined =>
  record.call.principal !== undefined
    ? `principal:${record.call.principal}`
    : record.call.address !== undefined
    ? `address:${record.call.address}`
    : undefined
