/**
 * Matching a URI against an RFC 6570 template in time linear in the URI.
 *
 * A template is literal text around variables. `{var}` (and the operators `. / ; ? &` after their prefix character)
 * matches one or more characters other than `/ ? #`; `{+var}` and `{#var}` (after `#`) match one or more characters
 * other than a line terminator, `/` included. Where a template is ambiguous (`{+a}/{+b}`), the earlier variable takes
 * the longest text that still lets the rest match, as a regular expression's greedy groups would.
 *
 * Gotcha: a regular expression with two such variables (`^x://(.+)/(.+)/(.+)$`) backtracks polynomially on a URI that
 * does not match, and every template is tried on every `resources/read`: one request could hold the event loop for
 * seconds. This matcher decides in one pass from the right which ends each variable can take, then walks from the left,
 * so its cost is the URI's length times the number of variables. URIs longer than {@link MAX_URI_LENGTH} match no
 * template.
 */

/** The longest URI a template matches, in UTF-16 code units. */
export const MAX_URI_LENGTH = 65_536

const VARIABLE = /\{([+#./;?&]?)([A-Za-z0-9_]+)\*?\}/g

/** Which characters a variable may take. */
type CharClass = (code: number) => boolean

/** One segment: no `/`, `?` or `#`. */
const segment: CharClass = (code) => code !== 0x2f && code !== 0x3f && code !== 0x23

/** Reserved expansion: anything but a line terminator (what `.` matches in a regular expression). */
const reserved: CharClass = (code) => code !== 0x0a && code !== 0x0d && code !== 0x2028 && code !== 0x2029

/** A template split into `literals[0] var[0] literals[1] var[1] ... literals[k]`. */
interface Compiled {
  readonly names: ReadonlyArray<string>
  readonly classes: ReadonlyArray<CharClass>
  readonly literals: ReadonlyArray<string>
}

const compile = (template: string): Compiled => {
  const names: Array<string> = []
  const classes: Array<CharClass> = []
  const literals: Array<string> = []
  let literal = ""
  let last = 0
  for (const match of template.matchAll(VARIABLE)) {
    const [, operator, name] = match
    literal += template.slice(last, match.index)
    if (operator !== "" && operator !== "+") literal += operator
    literals.push(literal)
    literal = ""
    names.push(name!)
    classes.push(operator === "+" || operator === "#" ? reserved : segment)
    last = match.index! + match[0].length
  }
  literals.push(literal + template.slice(last))
  return { names, classes, literals }
}

/**
 * For each variable `i`, `lastEnd[i][x]` is the largest end `e <= x` at which variable `i` can stop with the rest of
 * the template matching from `e` (its following literal, then the later variables), or -1.
 */
const ends = (uri: string, { classes, literals }: Compiled): Array<Int32Array> => {
  const n = uri.length
  const k = classes.length
  const lastEnd: Array<Int32Array> = new Array(k)
  // `restFrom[p]`: the template after variable i's literal matches uri from p. For the last variable: its literal
  // is the template's tail, so only p = n - tail.length with the tail there.
  let restFrom = (p: number): boolean => p === n
  for (let i = k - 1; i >= 0; i--) {
    const after = literals[i + 1]!
    const table = new Int32Array(n + 1)
    let best = -1
    for (let e = 0; e <= n; e++) {
      if (uri.startsWith(after, e) && restFrom(e + after.length)) best = e
      table[e] = best
    }
    lastEnd[i] = table
    // The rest from p, for variable i - 1: variable i starts at p and ends at some valid e in (p, firstBad(p)].
    const allowed = classes[i]!
    const feasible = new Uint8Array(n + 1)
    let firstBad = n
    for (let p = n; p >= 0; p--) {
      if (p < n && !allowed(uri.charCodeAt(p))) firstBad = p
      feasible[p] = table[firstBad]! > p ? 1 : 0
    }
    restFrom = (p) => p <= n && feasible[p] === 1
  }
  return lastEnd
}

/**
 * Compiles `template` into a matcher returning the percent-decoded variables of a URI it matches, or `undefined`.
 */
export const compileTemplate = (template: string): (uri: string) => Record<string, string> | undefined => {
  const compiled = compile(template)
  const { classes, literals, names } = compiled
  const head = literals[0]!
  if (names.length === 0) return (uri) => (uri === head ? {} : undefined)
  return (uri) => {
    if (uri.length > MAX_URI_LENGTH || !uri.startsWith(head)) return undefined
    const lastEnd = ends(uri, compiled)
    const variables: Record<string, string> = {}
    let start = head.length
    for (let i = 0; i < names.length; i++) {
      const allowed = classes[i]!
      let limit = start
      while (limit < uri.length && allowed(uri.charCodeAt(limit))) limit++
      const end = lastEnd[i]![limit]!
      if (end <= start) return undefined
      try {
        variables[names[i]!] = decodeURIComponent(uri.slice(start, end))
      } catch {
        return undefined
      }
      start = end + literals[i + 1]!.length
    }
    return variables
  }
}
