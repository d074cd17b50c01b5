/**
 * Formatting of the `npm run bench` report (`bench/index.ts`): aligned
 * tables, sections, number formats, and the register of targets.
 *
 * Every target the report checks goes through {@link check}: it prints one
 * line `PASS|MISS  <target>: <measured> (<what the ratio is>)` where it is
 * measured and is listed again in the summary at the end, so a reader can see
 * every verdict of a run in one place.
 */

const pad = (value: string, width: number) => value.padStart(width)
const padEnd = (value: string, width: number) => value.padEnd(width)

/** `value` with `digits` decimals, or `-` when it is not a finite number. */
export const fixed = (value: number, digits = 0): string => Number.isFinite(value) ? value.toFixed(digits) : "-"
/** A ratio such as `1.84x`. */
export const times = (value: number): string => `${fixed(value, 2)}x`
export const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(2)} MiB`
export const signedMib = (bytes: number): string =>
  `${bytes >= 0 ? "+" : "-"}${(Math.abs(bytes) / 1048576).toFixed(2)} MiB`
export const verdict = (pass: boolean): string => pass ? "PASS" : "MISS"

/** Prints a table; the first `left` columns are left-aligned, the others right-aligned. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>, left = 1): void => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => i < left ? padEnd(c, widths[i]!) : pad(c, widths[i]!)).join("  ").trimEnd()
  console.log(line(header))
  console.log(widths.map((w) => "-".repeat(w)).join("  "))
  for (const row of rows) console.log(line(row))
}

export const section = (title: string): void => console.log(`\n== ${title}`)

/** One checked target of the run. */
export interface Verdict {
  readonly target: string
  readonly measured: string
  readonly pass: boolean | undefined
}

const verdicts: Array<Verdict> = []

/**
 * Records and prints one target's verdict. `pass: undefined` is a target that
 * could not be measured (printed `n/a` with the reason in `measured`).
 */
export const check = (target: string, pass: boolean | undefined, measured: string): void => {
  verdicts.push({ target, measured, pass })
  console.log(`${pass === undefined ? "n/a " : verdict(pass)}  ${target}: ${measured}`)
}

/** Prints every recorded verdict again. */
export const summary = (): void => {
  section("Targets (every PASS/MISS of this run)")
  for (const v of verdicts) {
    console.log(`${v.pass === undefined ? "n/a " : verdict(v.pass)}  ${v.target}: ${v.measured}`)
  }
  const missed = verdicts.filter((v) => v.pass === false).length
  const unmeasured = verdicts.filter((v) => v.pass === undefined).length
  console.log(
    `${verdicts.length - missed - unmeasured} PASS, ${missed} MISS${
      unmeasured > 0 ? `, ${unmeasured} not measured` : ""
    }`
  )
}

/** Best-effort description of an error for a report line. */
export const describe = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200)
