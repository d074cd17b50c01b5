/**
 * The globs of `Mount`'s include / exclude filters: `*` any run of characters, `?` one character, anything else
 * itself.
 *
 * Gotcha: the filters are enforced on calls too, where the text (a resource URI) is the caller's; a glob compiled to a
 * regular expression (`.*a.*b.*`) backtracks polynomially on a long text that does not match. This is the two-pointer
 * method instead: on a mismatch, go back to just after the last `*` and let it take one more character.
 */

/** Whether `text` matches `glob`, in time at most the glob's length times the text's. */
export const matcher = (glob: string) => (text: string): boolean => {
  let g = 0
  let t = 0
  let star = -1
  let resume = 0
  while (t < text.length) {
    if (g < glob.length && (glob[g] === "?" || (glob[g] !== "*" && glob[g] === text[t]))) {
      g++
      t++
    } else if (g < glob.length && glob[g] === "*") {
      star = g++
      resume = t
    } else if (star !== -1) {
      g = star + 1
      t = ++resume
    } else {
      return false
    }
  }
  while (g < glob.length && glob[g] === "*") g++
  return g === glob.length
}
