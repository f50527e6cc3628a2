import type { CallFormat } from '../events.js';
import { mayBecomeMatch, type PrefixTest } from '../regex-prefix.js';
import type { Syntax } from './value-events.js';

/**
 * A name written before a body of arguments, read by a sticky `pattern` at the body's start
 * (group 1 the name; the match ends where the arguments begin). `partial` tells, of the text
 * so far, whether it may still become a match (more input decides): derived from `pattern`.
 */
export interface HeaderForm {
  pattern: RegExp;
  partial: PrefixTest;
}

/** The header `pattern` reads, its hold-back derived from it (declared once). */
export function headerForm(pattern: RegExp): HeaderForm {
  return { pattern, partial: mayBecomeMatch(pattern) };
}

/**
 * A Markdown fence the calls (or a call's arguments) stand in: an opening line such as
 * ```` ```python ````, then ```` ``` ```` after them.
 */
export interface FenceForm {
  /** The opening line, read by a sticky pattern. */
  open: RegExp;
  /** Whether an opening line may still come once more text comes (held while it may). */
  begun: PrefixTest;
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
  /** The format's name, as errors name its header. */
  name: string;
}

/** Calls written one after another between tokens, inside a section (DeepSeek's, Kimi's). */
export interface SectionCallForm {
  open: string;
  separator: string;
  close: string;
  /** The tool's name as the header writes it (Kimi: `functions.name:0`); '' when not there. */
  nameOf: (header: string) => string;
  /**
   * When the header holds no name (DeepSeek V3 and R1 write `function`): the name is the line
   * after the separator, and the arguments follow in a ```json fence.
   */
  nameOnNextLine?: boolean;
  /** The fence the arguments may stand in after a name on its own line. */
  fence?: FenceForm;
}

/**
 * A dialect whose calls are a body a model writes as data — JSON, Python calls, Gemma 4's
 * syntax — described for the one body engine (body/reader.ts) to read:
 * - `calls`: the body is a call object, a list of them, or Python calls (Hermes, Mistral's
 *   list, Nemotron, Jamba, Command R7B, Granite, Llama 3, LFM2, OLMo 3, Llama 4);
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
  /** Each call object is `{"tool": {arguments}}`: its one key is the tool's name (Apertus). */
  nameKeyed?: boolean;
  /**
   * A form that is another family's call in a wrapper not its own (Hermes' JSON in `<response>`,
   * a fence, none at all): read, with this `missing-wrapper` warning as each call ends.
   */
  missingWrapper?: string;
  /** Calls one after another with no list around them (OLMo 3's, one a line). */
  sequence?: boolean;
  /**
   * The calls stand in a fence inside the block (MiniCPM3's ```` ```python ```` …
   * ```` ``` ````): its opening line follows the block's opening, its end comes before the
   * block's close (outside strings: a value may hold the fence's end).
   */
  fence?: FenceForm;
  header?: HeaderForm;
  call?: SectionCallForm;
  message?: MessageForm;
}
