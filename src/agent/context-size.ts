/** What the model server says one request's context holds, and where it said it. */
export interface ContextSize {
  tokens: number;
  /** e.g. `vLLM: /v1/models max_model_len`. */
  source: string;
}

export interface ContextSizeOptions {
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** The model name requests use (vLLM and Ollama report per model). */
  model: string;
  apiKey?: string;
  /** Each probe's whole time (connect, headers, body). Default 3 s. */
  timeoutMs?: number;
}

export const CONTEXT_SIZE_DEFAULTS = { timeoutMs: 3000, maxBodyBytes: 4 << 20 };

/** A JSON body of at most `maxBodyBytes`, or null (not JSON, too large, an error status). */
async function getJson(url: string, apiKey: string | undefined, timeoutMs: number) {
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` },
      redirect: 'error',
    });
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      return null;
    }
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const part of response.body) {
      size += part.length;
      if (size > CONTEXT_SIZE_DEFAULTS.maxBodyBytes) return null;
      parts.push(part);
    }
    return JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

const field = (value: unknown, ...path: string[]): unknown => {
  let at = value;
  for (const key of path)
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at;
};
const positive = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;

/** The entry of `list` named `model`, or the only entry when there is one. */
function entryFor(list: unknown, model: string, names: string[]): unknown {
  if (!Array.isArray(list)) return undefined;
  const named = list.find((entry) => names.some((name) => field(entry, name) === model));
  return named ?? (list.length === 1 ? list[0] : undefined);
}

/**
 * Asks the server how many tokens one request's context holds, where it says so: vLLM's
 * `/v1/models` (`max_model_len` of the model), llama.cpp's `/props`
 * (`default_generation_settings.n_ctx`, one slot's context) and Ollama's `/api/ps`
 * (`context_length` of the loaded model; absent until the model is loaded). Null when none
 * answers: OpenAI-compatible servers in general do not say. Each probe is a GET bounded in time
 * and size; nothing is retried.
 */
export async function readContextSize(options: ContextSizeOptions): Promise<ContextSize | null> {
  const timeoutMs = options.timeoutMs ?? CONTEXT_SIZE_DEFAULTS.timeoutMs;
  const base = options.baseUrl.replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');
  const { apiKey, model } = options;
  const [models, props, ps] = await Promise.all([
    getJson(`${base}/models`, apiKey, timeoutMs),
    getJson(`${root}/props`, apiKey, timeoutMs),
    getJson(`${root}/api/ps`, apiKey, timeoutMs),
  ]);
  const vllm = positive(field(entryFor(field(models, 'data'), model, ['id']), 'max_model_len'));
  if (vllm !== null) return { tokens: vllm, source: 'vLLM: /v1/models max_model_len' };
  const llama = positive(field(props, 'default_generation_settings', 'n_ctx'));
  if (llama !== null) return { tokens: llama, source: 'llama.cpp: /props n_ctx' };
  const ollama = positive(
    field(entryFor(field(ps, 'models'), model, ['name', 'model']), 'context_length'),
  );
  if (ollama !== null) return { tokens: ollama, source: 'Ollama: /api/ps context_length' };
  return null;
}

/**
 * The conversation's share of a context: what is left after room for the reply, a quarter of
 * the context up to 8,192 tokens (tagcall's token counts are estimates, and a reply that
 * writes a file needs room).
 */
export function budgetForContext(tokens: number): number {
  return tokens - Math.min(8192, Math.floor(tokens / 4));
}
