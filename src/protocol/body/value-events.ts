import type { JsonValue } from '../events.js';
import type { ValueRepairKind } from '../recoveries.js';

/**
 * The syntaxes of values a model writes in a call's body: JSON (with the repairs below),
 * Python literals and calls (`[f(a='x', n=3)]`: LFM2, OLMo 3, Llama 4), and strings between
 * a quote token (`ReaderConfig.quoteToken`: Gemma 4's `<|"|>`), holding no escapes, with bare
 * keys.
 */
export enum Syntax {
  Json = 0,
  Python = 1,
  TokenQuoted = 2,
}

export enum Container {
  Object = 0,
  Array = 1,
  /** A Python call, `name(k=v, …)`: its keyword arguments are its keys. */
  Call = 2,
}

/**
 * What the reader tells as it reads, in the order of the text. Depth 1 is the top-level
 * value (or each value of a top-level sequence).
 */
export interface ValueEvents {
  /** A container opens at `depth`; `name` is a Python call's. */
  open(depth: number, kind: Container, at: number, name: string): void;
  /** A key of the object (a keyword of the call) at `depth`, whole. */
  key(depth: number, key: string, at: number): void;
  /** Decoded text of a string value at `depth`, in order, as soon as it is certain. */
  text(depth: number, text: string): void;
  /** A value completed at `depth` (a container once it closes); `end` is just after it. */
  value(depth: number, value: JsonValue, end: number): void;
  /**
   * A model's mistake read anyway, or a number kept as written: the declaration's row of
   * `kind` says it, with `values` (RECOVERY_VALUES) filled in.
   */
  repaired(kind: ValueRepairKind, at: number, values?: Readonly<Record<string, string>>): void;
}

export type { ValueRepairKind } from '../recoveries.js';

/** A recovery of a value read whole: its kind, where in the value, its values. */
export interface ValueRepair {
  kind: ValueRepairKind;
  at: number;
  values?: Readonly<Record<string, string>>;
}

export interface ReaderConfig {
  syntax: Syntax;
  /** One value (the body is a JSON value), or values one after another (OLMo 3's calls). */
  top: 'value' | 'sequence';
  /** What may close the block (none when the value's end is the block's end). */
  closes: readonly string[];
  /** The closes are special tokens: they end the body even inside a string (cut short). */
  closeInStrings: boolean;
  maxDepth: number;
  /** The token strings stand between (`Syntax.TokenQuoted`). */
  quoteToken?: string;
}

/** Why a value is none, where; `cut` when the input ended inside it (it was cut short). */
export interface ReadFailure {
  message: string;
  at: number;
  cut: boolean;
}
