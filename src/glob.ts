/** `*` and `?` wildcards over a whole id; everything else is literal. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

export const isGlob = (s: string): boolean => /[*?]/.test(s);

export function matchAny(id: string, globs: readonly string[]): boolean {
  return globs.some((g) => globToRegExp(g).test(id));
}
