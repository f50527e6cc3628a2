import { type BlockLimits, type BlockSink, skipBlanks } from '../block.js';
import type { ArgumentPath, CallFormat, JsonValue, ToolArguments } from '../events.js';
import { createObject } from '../markup/arguments-tree.js';
import {
  type Recoveries,
  type Recovery,
  type RecoveryValues,
  recoveryMessage,
} from '../recoveries.js';
import type { BodyRecoveryKind } from './form.js';
import { Container, ModelJsonReader, Syntax, type ValueEvents } from './model-json.js';
import type { ValueRepairKind } from './value-events.js';

/** What a body holds: call objects (or a list of them, or Python calls), or one call's arguments. */
export type BodyShape = 'calls' | 'arguments';

interface OpenCall {
  id: string;
  name: string;
  /** Argument text read before the name: told once the name is. */
  held: Array<[ArgumentPath, string]>;
  /** How many values of each argument key came so far (a repeat is the next index). */
  counts: Map<string, number>;
  path: ArgumentPath | null;
  /** `arguments` written as a JSON string: its own reader, fed the string's text. */
  inner: ModelJsonReader | null;
  innerArguments: JsonValue | undefined;
  /** The first repair its reader made, as its row words it (told once the string ends). */
  innerRepair?: string;
  /** Where its value began (a failure of the call points there). */
  at: number;
  /** The call's value is complete; it ends where `end` says unless the block's end extends it. */
  end: number;
  complete: boolean;
  arguments: ToolArguments;
}

type FailureCode =
  | 'missing-tool-name'
  | 'invalid-json'
  | 'max-depth-exceeded'
  | 'unreadable-arguments';

const NAME_KEYS = new Set(['name', 'tool_name']);
const ARGUMENT_KEYS = new Set(['arguments', 'parameters']);

/**
 * Turns what the value reader tells into calls, as the text streams: a call starts at its
 * object's `{` (or its Python call's name, or, for a body of arguments, where its header named
 * it), is named once its `"name"` string is read, streams the text of each top-level string
 * argument as the reader decodes it (held until the name is known), and is complete when its
 * value closes. It ends when what follows shows it is not the last of the block (the next
 * call's start), or at the block's end (its text then runs to the block's close): the calls of
 * a block end in order, the same however the text was cut. Its arguments are the value the
 * reader built, which is exactly what was streamed (a repeated key is streamed as the next
 * index of its path, with `duplicate-field`, and the last one counts, as JSON readers do).
 */
export class CallBuilder implements ValueEvents {
  readonly #sink: BlockSink;
  readonly #limits: BlockLimits;
  readonly #shape: BodyShape;
  readonly #format: CallFormat;
  /** The depth of call objects: 1 for a body that is one call, 2 in a list; 0 until known. */
  #callDepth = 0;
  #call: OpenCall | null = null;
  /** The key of the call object being read, and the depth its arguments object stands at. */
  #callKey = '';
  #argumentsDepth = -1;
  /** Calls started in this block, for a failure to end. */
  readonly started: string[] = [];
  #failed: { message: string; at: number; code: FailureCode } | null = null;

  /** A bare object is a call only with its arguments (`{"name": "Ada", "age": 3}` is data). */
  readonly #bare: boolean;
  /** The key the family writes a call's arguments under, as its error hints name it. */
  readonly #argumentsKey: string;
  /** A call object's one key is its name, its value the arguments (Apertus' `{"f": {…}}`). */
  readonly #nameKeyed: boolean;
  /** What the family writes after a Python call's tool name (BodyForm.nameSuffix). */
  readonly #nameSuffix: string;
  /** The keys of the object the calls stand in (`BodyForm.envelope`), or null. */
  readonly #envelope: ReadonlySet<string> | null;
  /** The depth the calls' value stands at: 1, or 2 in an envelope. */
  readonly #top: number;
  /** Keys that may follow the calls in the envelope, holding an empty string. */
  readonly #envelopeEmpty: ReadonlySet<string>;
  /** The envelope's key being read is one of those: its value must be ''. */
  #besideCalls = false;
  /** Each call is told this `missing-wrapper` row's warning as it ends, at the block's start. */
  #missingWrapper: { row: Recovery; at: number } | null = null;
  /** The declaration's recoveries, checked when its reader was built. */
  readonly #rows: Recoveries<BodyRecoveryKind>;

  constructor(
    rows: Recoveries<BodyRecoveryKind>,
    sink: BlockSink,
    limits: BlockLimits,
    shape: BodyShape,
    format: CallFormat,
    bare = false,
    nameKeyed = false,
    argumentsKey = 'arguments',
    nameSuffix = '',
    envelope?: readonly string[],
    envelopeEmpty: readonly string[] = [],
  ) {
    this.#rows = rows;
    this.#sink = sink;
    this.#limits = limits;
    this.#shape = shape;
    this.#format = format;
    this.#bare = bare;
    this.#argumentsKey = argumentsKey;
    this.#nameKeyed = nameKeyed;
    this.#nameSuffix = nameSuffix;
    this.#envelope = envelope === undefined ? null : new Set(envelope);
    this.#top = envelope === undefined ? 1 : 2;
    this.#envelopeEmpty = new Set(envelopeEmpty);
  }

  /**
   * The block (opened at absolute `at`) is the call in a wrapper not its own: each call says so
   * when it ends, a warning of its own (one that turns out no call is no recovery).
   */
  wrappedWrongly(row: Recovery, at: number): void {
    this.#missingWrapper = { row, at };
  }

  /** A recovery at absolute `at` in the call `id`: the warning of the declaration's row. */
  #recover<K extends BodyRecoveryKind>(
    kind: K,
    at: number,
    id: string | undefined,
    values?: RecoveryValues<K>,
  ): void {
    this.#warnAs(this.#rows[kind], at, id, values);
  }

  #warnAs(
    row: Recovery,
    at: number,
    id: string | undefined,
    values?: Readonly<Record<string, string>>,
  ): void {
    this.#sink.warn(row.code, recoveryMessage(row, values), at, id);
  }

  /** The message of a value's repair, as the declaration's row words it. */
  #repairMessage(kind: ValueRepairKind, values?: Readonly<Record<string, string>>): string {
    return recoveryMessage(this.#rows[kind], values);
  }

  /** A body of arguments: its call, named by the header that came before. */
  startNamed(name: string): void {
    this.#endPending();
    this.#callDepth = 0;
    this.#begin(name);
    this.#argumentsDepth = 1;
  }

  /** Why the body is no call (beyond what the reader says), if it is not. */
  get failure() {
    return this.#failed;
  }

  /** The current call's id (warnings are its own) and name, if one is being read. */
  get currentId(): string | undefined {
    return this.#call?.id;
  }

  get currentName(): string | undefined {
    return this.#call?.name || undefined;
  }

  /** The current call's text runs to absolute `end` (its own close, after its value). */
  extendEnd(end: number): void {
    if (this.#call !== null) this.#call.end = end;
  }

  /** The last call of the block ends at absolute `end`, its text running to the block's close. */
  endBlock(end: number): void {
    const call = this.#call;
    if (call === null) return;
    if (!call.complete) return;
    this.#finishCall(call, end);
  }

  /** The call whose value closed, if the next thing read shows it is over: its end. */
  #endPending(): void {
    const call = this.#call;
    if (call?.complete) this.#finishCall(call, call.end);
  }

  #finishCall(call: OpenCall, end: number): void {
    this.#call = null;
    this.flush();
    const wrapper = this.#missingWrapper;
    if (wrapper !== null) this.#warnAs(wrapper.row, wrapper.at, call.id);
    this.#sink.end(call.id, call.name, call.arguments, this.#format, end);
  }

  /** A Python call's tool name: its written name less the family's suffix (`.call`). */
  #toolNameOf(written: string): string {
    const suffix = this.#nameSuffix;
    return suffix !== '' && written.length > suffix.length && written.endsWith(suffix)
      ? written.slice(0, -suffix.length)
      : written;
  }

  #begin(name: string, at = 0): void {
    this.flush();
    const id = this.#sink.start();
    this.started.push(id);
    this.#call = {
      id,
      name,
      held: [],
      counts: new Map(),
      path: null,
      inner: null,
      innerArguments: undefined,
      at,
      end: 0,
      complete: false,
      arguments: createObject(),
    };
    this.#callKey = '';
    this.#argumentsDepth = -1;
    if (name !== '') this.#sink.name(id, name);
  }

  // --- ValueEvents. ---

  open(depth: number, kind: Container, at: number, name: string): void {
    if (this.#shape === 'arguments') {
      if (depth === 1 && kind !== Container.Object)
        this.#fail('invalid-json', 'the arguments are no object', at);
      return;
    }
    if (this.#envelope !== null && depth === 1) {
      if (kind !== Container.Object) this.#fail('invalid-json', this.#envelopeWords(), at);
      return;
    }
    if (this.#callDepth === 0)
      this.#callDepth = kind === Container.Array ? this.#top + 1 : this.#top;
    if (depth === this.#callDepth) {
      // A new item: the call before it is over, whatever the item is.
      this.#endPending();
      // A list in the list is no call (its value fails the block): nothing in it is the
      // arguments of the call before it.
      if (kind === Container.Array) return;
      this.#begin(kind === Container.Call ? this.#toolNameOf(name) : '', at);
      // A Python call's keywords are its arguments.
      if (kind === Container.Call) this.#argumentsDepth = depth;
      return;
    }
    if (
      depth === this.#callDepth + 1 &&
      this.#call !== null &&
      kind === Container.Object &&
      (this.#nameKeyed ? this.#callKey === this.#call.name : ARGUMENT_KEYS.has(this.#callKey))
    )
      this.#argumentsDepth = depth;
  }

  key(depth: number, key: string, at: number): void {
    if (this.#envelope !== null && depth === 1) {
      // One key, the envelope's (then, at most, an empty one): anything else is no call.
      this.#besideCalls = this.#envelopeKeyed && this.#envelopeEmpty.has(key);
      if (!this.#besideCalls && (!this.#envelope.has(key) || this.#envelopeKeyed))
        this.#fail('invalid-json', this.#envelopeWords(), at);
      this.#envelopeKeyed = true;
      return;
    }
    if (depth === this.#callDepth && this.#argumentsDepth !== depth) {
      this.#callKey = key;
      const call = this.#call;
      if (!this.#nameKeyed || call === null) return;
      // The key is the call's name: it is known, and told, before its arguments are read.
      if (call.name === '') this.#name(call, key.trim());
      else
        this.#fail(
          'invalid-json',
          'a call is one pair {"tool": {arguments}}; this one has another key',
          at,
        );
    } else if (depth === this.#argumentsDepth && this.#call !== null) {
      const call = this.#call;
      const index = call.counts.get(key) ?? 0;
      call.counts.set(key, index + 1);
      call.path = { names: [key], indices: [index] };
      if (index > 0) {
        this.flush();
        this.#recover('duplicate-argument', at, call.id, { key: JSON.stringify(key) });
      }
    }
  }

  text(depth: number, text: string): void {
    const call = this.#call;
    if (call === null) return;
    if (depth === this.#argumentsDepth + 1 && call.path !== null)
      this.#delta(call, call.path, text);
    else if (this.#atArgumentsValue(depth, call)) this.#innerText(call, text);
  }

  /** Whether a value at `depth` is the current call's arguments (a string there holds them). */
  #atArgumentsValue(depth: number, call: OpenCall): boolean {
    if (this.#shape === 'arguments') return depth === 1;
    if (depth !== this.#callDepth + 1) return false;
    return this.#nameKeyed ? this.#callKey === call.name : ARGUMENT_KEYS.has(this.#callKey);
  }

  /** The envelope's one key was read. */
  #envelopeKeyed = false;

  #envelopeWords(): string {
    const keys = [...(this.#envelope ?? [])].map((k) => JSON.stringify(k)).join(' or ');
    const empty = [...this.#envelopeEmpty].map((k) => `${JSON.stringify(k)}: ""`).join(', ');
    return `the calls are one object with one key, ${keys}, holding them${empty === '' ? '' : ` (then only ${empty})`}`;
  }

  value(depth: number, value: JsonValue, end: number): void {
    const call = this.#call;
    // The envelope closed (its calls end with the block), or held more than its calls (a value
    // after them must not end the call before it), or its value is no call nor list.
    if (this.#envelope !== null && (depth <= 1 || this.#failed !== null)) return;
    if (this.#besideCalls && depth === this.#top) {
      if (value !== '') this.#fail('invalid-json', this.#envelopeWords(), end);
      return;
    }
    if (this.#envelope !== null && depth === this.#top && this.#callDepth === 0) {
      this.#fail('invalid-json', this.#envelopeWords(), end);
      return;
    }
    if (this.#shape === 'arguments') {
      if (depth !== 1 || call === null) return;
      let args: JsonValue | undefined = value;
      if (typeof value === 'string') {
        this.#endInner(call, end);
        args = call.innerArguments;
      } else if (value !== null && !isObject(value))
        this.#fail('invalid-json', 'the arguments are no object', end);
      if (args === undefined || this.#failed !== null) return;
      call.arguments = asArguments(args);
      call.complete = true;
      call.end = end;
      return;
    }
    // The arguments object closed: what follows in the call is no argument.
    if (depth === this.#argumentsDepth && depth !== this.#callDepth) this.#argumentsDepth = -1;
    if (call === null) {
      if (depth === this.#callDepth || depth === 1)
        this.#fail('invalid-json', 'a call is an object: {"name": …, "arguments": {…}}', end);
      return;
    }
    if (depth === this.#callDepth) {
      // A second item where calls stand that is no object (`[{…}, "x"]`): it must not complete
      // the call before it again (its arguments would become `{}` after they streamed).
      if (call.complete) {
        this.#endPending();
        this.#fail('invalid-json', 'a call is an object: {"name": …, "arguments": {…}}', end);
      } else this.#complete(call, value, end);
    } else if (depth !== this.#callDepth + 1 || typeof value !== 'string') return;
    else if (this.#atArgumentsValue(depth, call)) this.#endInner(call, end);
    else if (!this.#nameKeyed && NAME_KEYS.has(this.#callKey)) this.#name(call, value.trim());
  }

  repaired(kind: ValueRepairKind, at: number, values?: Readonly<Record<string, string>>): void {
    this.flush();
    this.#warnAs(this.#rows[kind], at, this.#call?.id, values);
  }

  // --- A call's parts. ---

  #name(call: OpenCall, name: string): void {
    if (call.name !== '' || name === '') return;
    call.name = name;
    this.flush();
    this.#sink.name(call.id, name);
    for (const [path, text] of call.held) this.#sink.delta(call.id, path, text);
    call.held = [];
  }

  #delta(call: OpenCall, path: ArgumentPath, text: string): void {
    if (call.name === '') {
      call.held.push([path, text]);
      return;
    }
    if (path !== this.#pendingPath || call.id !== this.#pendingId) {
      this.flush();
      this.#pendingPath = path;
      this.#pendingId = call.id;
    }
    this.#pendingText += text;
    if (!this.reading) this.flush();
  }

  /**
   * A run of the body reader is under way: argument text is gathered and told at its end. Text
   * told outside one (the stream's fast path, a chunk inside a string) goes out at once:
   * nothing else would tell it before the next chunk that needs the reader's steps.
   */
  reading = false;

  /** Argument text read but not told: one delta a read and value, not one a piece. */
  #pendingPath: ArgumentPath | null = null;
  #pendingId = '';
  #pendingText = '';

  /** Tells the argument text read so far (before any other event, and at the end of a read). */
  flush(): void {
    if (this.#pendingPath !== null && this.#pendingText !== '')
      this.#sink.delta(this.#pendingId, this.#pendingPath, this.#pendingText);
    this.#pendingPath = null;
    this.#pendingText = '';
  }

  /** `arguments` written as a JSON string: its decoded text is read as the arguments. */
  #innerText(call: OpenCall, text: string): void {
    if (call.inner === null) {
      const outer = this;
      let path: ArgumentPath | null = null;
      const counts = new Map<string, number>();
      call.inner = new ModelJsonReader(
        {
          syntax: Syntax.Json,
          top: 'value',
          closes: [],
          closeInStrings: false,
          maxDepth: this.#limits.maxDepth,
        },
        {
          open() {},
          key(depth, name) {
            if (depth !== 1) return;
            const index = counts.get(name) ?? 0;
            counts.set(name, index + 1);
            path = { names: [name], indices: [index] };
          },
          text(depth, piece) {
            if (depth === 2 && path !== null) outer.#delta(call, path, piece);
          },
          value(depth, value) {
            if (depth === 1) call.innerArguments = value;
          },
          // Its offsets are in the decoded string: the first is told where the string ends.
          repaired(kind, _at, values) {
            call.innerRepair ??= outer.#repairMessage(kind, values);
          },
        },
      );
    }
    this.#innerPending += text;
    const read = call.inner.read(this.#innerPending, 0, 0, false);
    this.#innerPending = this.#innerPending.slice(read);
  }

  #innerPending = '';

  /**
   * The arguments' string ended at absolute `at`: the object it holds is the arguments, read
   * with a warning (the string's text was streamed as they were). A string that holds no
   * object fails the call: it never runs with arguments it lost. An empty string is none.
   */
  #endInner(call: OpenCall, at: number): void {
    const inner = call.inner;
    if (inner === null) call.innerArguments = createObject();
    else {
      const rest = this.#innerPending;
      const read = inner.read(rest, 0, 0, true);
      this.#innerPending = '';
      // A string whose JSON is left open is cut short, and one with more after it holds more
      // than the object: neither is repaired into arguments.
      if (
        !inner.done ||
        skipBlanks(rest, read, rest.length) < rest.length ||
        !isObject(inner.result)
      ) {
        call.innerArguments = undefined;
        if (inner.depthExceeded)
          this.#fail(
            'max-depth-exceeded',
            `the arguments nest deeper than ${this.#limits.maxDepth} levels`,
            at,
          );
        else
          this.#fail(
            'invalid-json',
            'the arguments are a string that does not hold a JSON object; write the object itself: {"key": "value"}',
            at,
          );
        return;
      }
    }
    this.flush();
    this.#recover('string-encoded-arguments', at, call.id);
    if (call.innerRepair !== undefined)
      this.#recover('repaired-json-in-string', at, call.id, { repair: call.innerRepair });
  }

  #complete(call: OpenCall, value: JsonValue, end: number): void {
    const fields = (isObject(value) ? value : {}) as Record<string, JsonValue>;
    if (this.#bare && fields.arguments === undefined && fields.parameters === undefined) {
      this.#fail(
        'missing-tool-name',
        `a call written as bare JSON needs "${this.#argumentsKey}": {"name": "tool", "${this.#argumentsKey}": {…}}`,
        call.at,
      );
      return;
    }
    if (call.name === '') {
      this.#fail(
        'missing-tool-name',
        this.#nameKeyed
          ? 'each call is the tool\'s name and its arguments: {"tool": {…}}'
          : 'each call needs "name": {"name": "tool", "arguments": {…}}',
        call.at,
      );
      return;
    }
    const written = this.#nameKeyed ? fields[call.name] : (fields.arguments ?? fields.parameters);
    if (written === undefined) {
      // Every family's template writes the key, `{}` for a tool that takes none: without it the
      // call's arguments are wherever the model put them, and it must not run without them.
      this.#fail(
        'unreadable-arguments',
        `the call has no "${this.#argumentsKey}"; write {"name": "${call.name}", "${this.#argumentsKey}": {…}}, {} when the tool takes none`,
        call.at,
      );
      return;
    }
    const args = typeof written === 'string' ? call.innerArguments : written;
    if (args !== undefined && args !== null && !isObject(args)) {
      this.#fail('invalid-json', '"arguments" must be an object', end);
      return;
    }
    call.arguments = asArguments(args ?? null);
    call.complete = true;
    call.end = end;
  }

  #fail(code: FailureCode, message: string, at: number): void {
    if (this.#failed === null) this.#failed = { code, message, at };
  }
}

const isObject = (v: unknown): v is Record<string, JsonValue> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value as arguments: an object (null-prototype, as the reader builds them), or `{}`. */
function asArguments(value: JsonValue | undefined): ToolArguments {
  return isObject(value) ? (value as ToolArguments) : createObject();
}
