import type { CallFormat } from '../events.js';
import {
  type Recoveries,
  type Recovery,
  type RecoveryKind,
  VALUE_REPAIR_KINDS,
} from '../recoveries.js';
import { type PrefixTest, prefixTestOf } from '../regex-prefix.js';
import type { Syntax } from './value-events.js';

/**
 * A Markdown fence the calls (or a call's arguments) stand in: an opening line such as
 * ```` ```python ````, then ```` ``` ```` after them.
 */
export interface FenceForm {
  /** The opening line, read by a sticky pattern (held back while it may still come). */
  open: RegExp;
  /** The fence's end. */
  close: string;
  /** The fence as warnings name it (```` ```python ````). */
  label: string;
}

/**
 * Messages, each with a header that says what it is (a call to a recipient, thinking, or
 * text), the header ended by `headerEnd`, the message by one of `ends` or the next `start`.
 */
export interface MessageForm {
  headerEnd: string;
  /** What begins the next message: it ends the one before (and is not consumed). */
  start: string;
  /** What ends a message besides the next one's start; `callEnd` is among them. */
  ends: readonly string[];
  /** What a call's message ends with. */
  callEnd: string;
  /** In a header: the recipient that makes the message a call (group 1: the tool's name). */
  recipient: RegExp;
  /** In a header: what makes the message thinking. */
  thinking: RegExp;
  /**
   * In a header: what makes the message the answer: its header is an answer marker (out of
   * the text, as the family's declared markers are), its words text. Absent: a message that is
   * neither a call nor thinking is text, header included.
   */
  answer?: RegExp;
  /** The format's name, as errors name its header. */
  name: string;
}

/** Calls written one after another between tokens, inside a section (DeepSeek's, Kimi's). */
export interface SectionCallForm {
  open: string;
  separator: string;
  close: string;
  /**
   * The tool's name in the header (Kimi writes `functions.name:0`): group 1 of this pattern's
   * match of the trimmed header, trimmed; '' when it does not match (the header holds no name).
   */
  name: RegExp;
  /**
   * When the header holds no name (DeepSeek V3 and R1 write `function`): the name is the line
   * after the separator, and the arguments follow in a ```json fence.
   */
  nameOnNextLine?: boolean;
  /** The fence the arguments may stand in after a name on its own line. */
  fence?: FenceForm;
}

/** Recoveries of every body form: its values, its arguments, and the input's end. */
export const BODY_KINDS = [
  ...VALUE_REPAIR_KINDS,
  'duplicate-argument',
  'string-encoded-arguments',
  'repaired-json-in-string',
  'unclosed-call-at-end',
] as const;
/** Recoveries of a body whose calls stand in a fence (`BodyForm.fence`). */
export const FENCE_KINDS = ['missing-fence', 'unclosed-fence'] as const;
/** Both: a fenced body's. */
export const FENCED_BODY_KINDS = [...BODY_KINDS, ...FENCE_KINDS] as const;
export type BodyRecoveryKind = (typeof BODY_KINDS)[number] | (typeof FENCE_KINDS)[number];

/**
 * A body form's recoveries: those of every body form, and a fence's where it has one (the
 * reader checks them when it is built: a declaration that lacks one is a mistake of the code).
 */
export type BodyRecoveries = Recoveries<(typeof BODY_KINDS)[number]> &
  Partial<Recoveries<RecoveryKind>>;

/**
 * A dialect whose calls are a body a model writes as data — JSON, Python calls, Gemma 4's
 * syntax — described for the one body engine (body/reader.ts) to read:
 * - `calls`: the body is a call object, a list of them, or Python calls (Hermes, Mistral's
 *   list, Nemotron, Jamba, Command R7B, Granite, Llama 3, LFM2, OLMo 3, Llama 4), or an
 *   object holding them under a key (`envelope`);
 * - `named`: a header names the call and the body is its arguments (functionary, Mistral's
 *   `name[ARGS]`, Gemma 4);
 * - `sections`: calls between tokens inside a section (DeepSeek, Kimi-K2);
 * - `messages`: messages, each a call, thinking or text by its header (gpt-oss's harmony).
 */
export interface BodyForm {
  format: CallFormat;
  kind: 'calls' | 'named' | 'sections' | 'messages';
  /** The block's opening (a section's, for `sections`). */
  open: string;
  /** The opening is the body's own first characters (`[` of Llama 4's list, `{"name"`). */
  openIsBody?: boolean;
  /** The block's close; '' when the body's value ends the block (Mistral, Granite, Llama 3). */
  close: string;
  /** The close is a special token: a string cannot hold it (a string cut by it is cut short). */
  closeIsToken?: boolean;
  syntax: Syntax;
  /** The token a `Syntax.TokenQuoted` string stands between (Gemma 4's `<|"|>`). */
  quoteToken?: string;
  /** A bare JSON object at a line start: a call only with its `arguments` or `parameters`. */
  bareObject?: boolean;
  /** The key the family writes a call's arguments under, as error hints name it (`arguments`). */
  argumentsKey?: 'arguments' | 'parameters';
  /**
   * For a body with no close: texts that cut it short wherever they stand, inside a string too
   * (a line that opens the family's own block: no JSON string holds a raw newline, so only a
   * broken value runs into it). A value cut inside a string is no call, and the block after it
   * is read.
   */
  cutBy?: readonly string[];
  /**
   * For a body with no close: what joins a further call object to a call object on the same
   * line (`{…}; {…}`, as Llama 3.2 writes several calls), blanks allowed on either side. Any
   * other text after the value ends the block there.
   */
  separator?: string;
  /**
   * What the family writes after a Python call's tool name, not part of it (Llama 3.1's built-in
   * tools: `brave_search.call(query="…")` calls `brave_search`).
   */
  nameSuffix?: string;
  /** Each call object is `{"tool": {arguments}}`: its one key is the tool's name (Apertus). */
  nameKeyed?: boolean;
  /**
   * The body is an object whose one key, one of these, holds the calls: a call object or a
   * list of them (llama.cpp's generic `{"tool_calls": […]}`). Any other key, or a second one,
   * makes the body no call.
   */
  envelope?: readonly string[];
  /** Keys that may stand in the envelope after the calls, holding an empty string (`"content": ""`). */
  envelopeEmpty?: readonly string[];
  /**
   * A form that is another family's call in a wrapper not its own (Hermes' JSON in `<response>`,
   * a fence, none at all): read, with this row's warning as each call ends.
   */
  missingWrapper?: Recovery;
  /** The warning each recovery emits (see BodyRecoveries). */
  recoveries: BodyRecoveries;
  /** Calls one after another with no list around them (OLMo 3's, one a line). */
  sequence?: boolean;
  /**
   * The calls stand in a fence inside the block (MiniCPM3's ```` ```python ```` …
   * ```` ``` ````): its opening line follows the block's opening, its end comes before the
   * block's close (outside strings: a value may hold the fence's end).
   */
  fence?: FenceForm;
  /**
   * A name written before the arguments (`named`), read by a sticky pattern at the body's start:
   * group 1 the name, the match ending where the arguments begin (held back while it may still
   * match).
   */
  header?: RegExp;
  call?: SectionCallForm;
  /**
   * `sections`: the section's opening opens its first call too (no call opening follows it),
   * so the first call's header comes right after it.
   */
  openIsFirstCall?: boolean;
  message?: MessageForm;
}

/**
 * What the body engine derives from a form's patterns: built once per declaration, with its
 * reader (src/protocol/built-reader.ts), never per block.
 */
export interface BodyTests {
  /** Whether the text from an index may still become a match of the form's `header`. */
  headerBegun: PrefixTest | null;
  /** Whether an opening line of the body's fence (`fence`) may still come. */
  fenceBegun: PrefixTest | null;
  /** Whether an opening line of a section call's fence (`call.fence`) may still come. */
  callFenceBegun: PrefixTest | null;
  /** A section call's name from its trimmed header, as `call.name` reads it. */
  nameOf: (header: string) => string;
}

/** What `form`'s patterns give the engine (each hold-back derived once per pattern). */
export function bodyTestsOf(form: BodyForm): BodyTests {
  const name = form.call?.name;
  return {
    headerBegun: form.header === undefined ? null : prefixTestOf(form.header),
    fenceBegun: form.fence === undefined ? null : prefixTestOf(form.fence.open),
    callFenceBegun: form.call?.fence === undefined ? null : prefixTestOf(form.call.fence.open),
    nameOf: name === undefined ? () => '' : (header) => name.exec(header)?.[1]?.trim() ?? '',
  };
}
