import type { CallFormat } from '../events.js';
import type { Syntax } from './model-json.js';

/**
 * A name written before a body of arguments, read by a sticky `pattern` at the body's start
 * (group 1 the name; the match ends where the arguments begin). `partial` tells, of the text
 * so far, whether it may still become a match (more input decides).
 */
export interface HeaderForm {
  pattern: RegExp;
  partial: RegExp;
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
}

/**
 * A dialect whose calls are a body a model writes as data — JSON, Python calls, Gemma 4's
 * syntax — described for the one body engine (body/reader.ts) to read:
 * - `calls`: the body is a call object, a list of them, or Python calls (Hermes, Mistral's
 *   list, Nemotron, Jamba, Command R7B, Granite, Llama 3, LFM2, OLMo 3, Llama 4);
 * - `named`: a header names the call and the body is its arguments (functionary, Mistral's
 *   `name[ARGS]`, Gemma 4);
 * - `sections`: calls between tokens inside a section (DeepSeek, Kimi-K2);
 * - `harmony`: gpt-oss's messages, each a call, thinking or text by its header.
 */
export interface BodyForm {
  format: CallFormat;
  kind: 'calls' | 'named' | 'sections' | 'harmony';
  /** The block's opening (a section's, for `sections`). */
  open: string;
  /** The opening is the body's own first characters (`[` of Llama 4's list, `{"name"`). */
  openIsBody?: boolean;
  /** The block's close; '' when the body's value ends the block (Mistral, Granite, Llama 3). */
  close: string;
  /** The close is a special token: a string cannot hold it (a string cut by it is cut short). */
  closeIsToken?: boolean;
  syntax: Syntax;
  /** A bare JSON object at a line start: a call only with its `arguments` or `parameters`. */
  bareObject?: boolean;
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
   * The calls stand in a Markdown fence inside the block (MiniCPM3's ```` ```python ````
   * … ```` ``` ````): its opening line follows the block's opening, its end comes before the
   * block's close (outside strings: a value may hold ```` ``` ````).
   */
  fenced?: boolean;
  header?: HeaderForm;
  call?: SectionCallForm;
}
