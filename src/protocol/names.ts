/**
 * Argument names, one string per name, shared by every parser. A name read from the input is a
 * new string each time (a slice, or a decoded JSON key). Stored as a property key, a new copy
 * of the name an object was last given misses V8's inline cache for that store, which then
 * runs in the runtime: ~500 ns a store, a third of a short `<tool>` call's whole cost when a
 * reply calls one tool again and again, as agents do. The first copy of each name, given back
 * for every later one, keeps that store on its fast path.
 *
 * Shared so that a server's parser per request gains too. Bounded: at most `MAX_NAMES` names
 * of at most `MAX_KEPT_LENGTH` characters (128 KiB); when full it starts over, so hostile
 * input costs only speed, never memory.
 */
const names = new Map<string, string>();

const MAX_NAMES = 1024;
const MAX_KEPT_LENGTH = 64;

/** `name` itself, or the equal string given here first. */
export function sharedName(name: string): string {
  const known = names.get(name);
  if (known !== undefined) return known;
  if (name.length > MAX_KEPT_LENGTH || !admitsNew()) return name;
  if (names.size >= MAX_NAMES) names.clear();
  const kept = detached(name);
  names.set(kept, kept);
  return kept;
}

let misses = 0;

/**
 * Whether a name not in the table (or a tag for a taken slot of tag.ts's) is taken: one time
 * in eight. A flood of names never seen again (hostile input, or a call of 20,000 distinct
 * arguments) then pays for a copy an eighth as often (it read 2.5× slower than with no
 * table), and a name that comes again is taken after a few more readings.
 */
export function admitsNew(): boolean {
  misses = (misses + 1) & 7;
  return misses === 0;
}

/**
 * `text` in a flat string of its own. A slice of 13 characters or more is a view of the
 * string it was cut from, and kept in a table shared by every parser it would keep that whole
 * reply (a 16 MiB reply for a 30-character name: test/short-lived-parsers.test.ts). Built
 * from its character codes, the copy is also a plain sequential string, which V8's
 * `startsWith` compares natively (about 14 ns for a tag, against 45 for a view: tag.ts).
 */
export function detached(text: string): string {
  if (text.length < 13) return text;
  const codes: number[] = new Array(text.length);
  for (let k = 0; k < text.length; k++) codes[k] = text.charCodeAt(k);
  return String.fromCharCode(...codes);
}
