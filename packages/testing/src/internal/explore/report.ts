/**
 * What an exploration tells its author: the coverage of the conversation
 * tree (which asks were reached, with which outcomes) and, for a failure,
 * the shrunk conversation printed as a test to paste.
 */
import type { Asked, Target, Trace } from "./model.ts"

/** The outcomes one ask key was reached with. */
export interface KeyCoverage {
  readonly kind: string
  accepted: number
  declined: number
  cancelled: number
  unanswered: number
  wrongKind: number
  invalid: number
  askedAgain: number
}

/** The coverage of an exploration: per ask key, and how the conversations ended. */
export interface Coverage {
  readonly conversations: number
  readonly keys: Record<string, KeyCoverage>
  readonly endings: Record<string, number>
}

const kindOf = (method: string) =>
  method === "elicitation/create" ? "elicitation" : method === "sampling/createMessage" ? "sampling" : "roots"

/** An empty coverage. */
export const empty = (): {
  conversations: number
  keys: Record<string, KeyCoverage>
  endings: Record<string, number>
} => ({
  conversations: 0,
  keys: {},
  endings: {}
})

const endingOf = (trace: Trace): string => {
  const { ending } = trace
  if (ending._tag === "Result") return ending.result.isError === true ? "tool error" : "completed"
  if (ending._tag === "Error") return `error ${ending.error.code}`
  return "unfinished"
}

/** Adds one conversation to `coverage`. */
export const add = (coverage: ReturnType<typeof empty>, trace: Trace): void => {
  coverage.conversations++
  const ending = `${endingOf(trace)} (${trace.mode === "task" ? "task" : trace.era})`
  coverage.endings[ending] = (coverage.endings[ending] ?? 0) + 1
  for (const asked of trace.asked) {
    const key = asked.key.replace(/#\d+$/, "")
    const entry = coverage.keys[key] ??= {
      kind: kindOf(asked.request.method),
      accepted: 0,
      declined: 0,
      cancelled: 0,
      unanswered: 0,
      wrongKind: 0,
      invalid: 0,
      askedAgain: 0
    }
    switch (asked.choice) {
      case "accept":
        entry.accepted++
        break
      case "decline":
        entry.declined++
        break
      case "cancel":
        entry.cancelled++
        break
      case "omit":
        entry.unanswered++
        break
      case "wrongKind":
        entry.wrongKind++
        break
      case "invalid":
        entry.invalid++
    }
  }
  for (const key of trace.askedAgain) {
    const entry = coverage.keys[key.replace(/#\d+$/, "")]
    if (entry !== undefined) entry.askedAgain++
  }
}

/** The coverage as a table, with the outcomes never reached named. */
export const formatCoverage = (coverage: Coverage): string => {
  const lines = [
    `${coverage.conversations} conversations; endings: ${
      Object.entries(coverage.endings).map(([ending, n]) => `${ending} ${n}`).join(", ") || "none"
    }`
  ]
  for (const [key, c] of Object.entries(coverage.keys)) {
    const never = c.kind === "elicitation"
      ? [c.accepted === 0 ? "accepted" : "", c.declined === 0 ? "declined" : "", c.cancelled === 0 ? "cancelled" : ""]
        .filter((s) => s !== "")
      : []
    lines.push(
      `  ${key} (${c.kind}): accepted ${c.accepted}, declined ${c.declined}, cancelled ${c.cancelled}, ` +
        `unanswered ${c.unanswered}, wrong kind ${c.wrongKind}, invalid ${c.invalid}, asked again ${c.askedAgain}` +
        (never.length === 0 ? "" : `; never ${never.join(", ")}`)
    )
  }
  return lines.join("\n")
}

const json = (value: unknown) => JSON.stringify(value)

/** The expression of one answer in a `ScriptedUser` script. */
const expression = (asked: Asked): string => {
  const answer = asked.answer as any
  if (asked.choice === "omit") return "Explore.noAnswer"
  if (asked.choice === "wrongKind") return `Explore.raw(${json(answer)})`
  if (asked.request.method === "elicitation/create") {
    if (answer.action === "decline") return "ScriptedUser.decline"
    if (answer.action === "cancel") return "ScriptedUser.cancel"
    return `ScriptedUser.accept(${answer.content === undefined ? "" : json(answer.content)})`
  }
  if (asked.request.method === "sampling/createMessage") {
    return answer.content?.type === "text"
      ? `ScriptedUser.text(${json(answer.content.text)}, ${json(answer.model)})`
      : `Explore.raw(${json(answer)})`
  }
  return json(answer.roots)
}

const byRound = (answers: ReadonlyArray<Asked>, indent: string, roots: boolean): string => {
  const distinct = new Set(answers.map(expression))
  if (distinct.size === 1 && !(roots && answers[0]!.choice !== "accept")) return expression(answers[0]!)
  const entries = answers.map((a) => `${indent}  ${a.round}: ${expression(a)}`).join(",\n")
  return `Explore.inRounds({\n${entries}\n${indent}})`
}

const scriptOf = (asked: ReadonlyArray<Asked>, indent: string): string => {
  const groups = new Map<string, Array<Asked>>()
  for (const a of asked) {
    const kind = kindOf(a.request.method)
    const key = kind === "roots" ? "roots" : `${kind}\u0000${a.key.replace(/#\d+$/, "")}`
    groups.set(key, [...(groups.get(key) ?? []), a])
  }
  const section = (kind: string) =>
    [...groups].filter(([key]) => key.startsWith(`${kind}\u0000`)).map(([key, answers]) =>
      `${indent}      ${json(key.split("\u0000")[1])}: ${byRound(answers, `${indent}      `, false)}`
    ).join(",\n")
  const elicitation = section("elicitation")
  const sampling = section("sampling")
  const roots = groups.get("roots")
  return [
    `${indent}  user: ScriptedUser.layer({`,
    `${indent}    elicitation: { byKey: {${elicitation === "" ? "" : `\n${elicitation}\n${indent}    `}} },`,
    `${indent}    sampling: { tools: true, byKey: {${sampling === "" ? "" : `\n${sampling}\n${indent}    `}} },`,
    `${indent}    roots: ${roots === undefined ? "[]" : byRound(roots, `${indent}    `, true)}`,
    `${indent}  })`
  ].join("\n")
}

/** The target's fields in `Explore` options. */
export const targetFields = (target: Target): string =>
  "tool" in target
    ? `tool: ${json(target.tool)}`
    : "prompt" in target
    ? `prompt: ${json(target.prompt)}`
    : `resource: ${json(target.resource)}`

/** The shrunk conversation as a test that replays it with a `ScriptedUser` and the explorer's checks. */
export const printTest = (
  trace: Trace,
  target: Target,
  options: { readonly server: string; readonly title: string }
): string =>
  [
    `it.live(${json(options.title)}, () =>`,
    `  Explore.replay({`,
    options.server === "server" ? `    server,` : `    server: ${options.server},`,
    `    ${targetFields(target)},`,
    ...("resource" in target ? [] : [`    arguments: ${json(trace.arguments ?? {})},`]),
    `    protocol: ${json(trace.mode)},`,
    scriptOf(trace.asked, "  "),
    `  }))`
  ].join("\n")

/** The shrunk conversation, round by round. */
export const formatTrace = (trace: Trace): string =>
  [
    `  ${trace.mode === "task" ? "as a task" : `era ${trace.era}`}, arguments ${json(trace.arguments)}`,
    ...trace.asked.map((a) =>
      `  round ${a.round} ${a.key} (${kindOf(a.request.method)}): ${a.choice} ${
        a.answer === undefined ? "" : json(a.answer)
      }`
    ),
    `  ending: ${json(trace.ending)}`
  ].join("\n")
