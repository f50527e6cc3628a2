import { redactUrl } from '../messages/redact-url.js';
import { DEFAULT_DIALECT, isFamilyDialect } from '../protocol/dialect-names.js';
import { DIALECTS } from '../protocol/index.js';
import { PROXY_DEFAULTS, type ProxyOptions, startProxy } from '../server/index.js';
import {
  defineCommand,
  oneOf,
  port,
  positiveInteger,
  UsageError,
  untilStopped,
} from './command.js';
import { httpUrlFlag } from './url-flag.js';

/**
 * Runs the proxy until SIGINT or SIGTERM. The address goes to stderr as
 * `tagcall serve: listening on URL`, so a script (or a test) can read the port it got.
 */
export async function runServe(options: ProxyOptions): Promise<number> {
  const proxy = await startProxy(options);
  // Listening for signals before saying so: whoever reads the line may stop us at once.
  const stopped = untilStopped();
  process.stderr.write(
    `tagcall serve: listening on ${proxy.url} (upstream ${redactUrl(options.upstream)})\n`,
  );
  const code = await stopped;
  await proxy.close();
  return code;
}

const USAGE = `Usage: tagcall serve --upstream URL [options]

An OpenAI-compatible server (POST /v1/chat/completions, GET /v1/models) in front of a model
server without native tool calling: requests with "tools" go upstream in the text protocol,
and replies come back with native tool_calls (streamed as delta.tool_calls), thinking as
reasoning_content. Requests without tools pass through unchanged.

Options:
  --upstream URL        the model server, e.g. http://127.0.0.1:8080/v1 (llama.cpp),
                        http://127.0.0.1:11434/v1 (Ollama)
  --port N              default 4000 (0: any free port)
  --host ADDR           default ${PROXY_DEFAULTS.host}
  --model-map A=B       serve model A as upstream model B (repeatable)
  --grammar llama.cpp   send a generated grammar with tool requests, for calls in --dialect's
                        format (lazy for tool_choice auto: from the format's opening on), as a
                        llama-server completion (/apply-template, then /v1/completions)
  --dialect D           the call format the model is taught, its earlier calls are written in and
                        its replies are read in: ${DEFAULT_DIALECT} (default), ${DIALECTS.filter(isFamilyDialect).join(', ')},
                        or auto (reads all of them; the prompt teaches <tool>)
  --api-key KEY         sent upstream (default: the client's Authorization header)
  --require-key KEY     clients must send "Authorization: Bearer KEY" (default: $TAGCALL_SERVE_KEY;
                        none); it is never passed upstream
  --allowed-host NAME   a Host name to serve besides IP addresses and localhost (repeatable;
                        other names get 403, against DNS rebinding)
  --allowed-origin URL  a web origin whose pages may call the proxy (repeatable; a request
                        with another Origin header gets 403: pages cannot spend your key)
  --max-body-bytes N    larger requests get 413 (default ${PROXY_DEFAULTS.maxBodyBytes})
  --budget N            tokens the model's context holds: a request whose tool prompt alone is
                        larger gets 400 with the numbers (default: no check)
  --connect-timeout-ms N  wait for the upstream's headers, then 504 (default ${PROXY_DEFAULTS.connectTimeoutMs})
  --idle-timeout-ms N   longest pause in the upstream's answer, then 504 (default ${PROXY_DEFAULTS.idleTimeoutMs})
  --stream-calls-early  send each call's arguments as the model writes them (unsafe: a call that
                        then breaks off cannot be taken back, and clients that run open calls at
                        the end of a stream run it; default: a call is sent once it has ended)
  -h, --help            this text
`;

export const serveCommand = defineCommand({
  name: 'serve',
  usage: USAGE,
  options: {
    upstream: { type: 'string' },
    port: { type: 'string', default: '4000' },
    host: { type: 'string' },
    'model-map': { type: 'string', multiple: true },
    grammar: { type: 'string' },
    dialect: { type: 'string' },
    'api-key': { type: 'string' },
    'require-key': { type: 'string' },
    'allowed-host': { type: 'string', multiple: true },
    'allowed-origin': { type: 'string', multiple: true },
    'max-body-bytes': { type: 'string' },
    'connect-timeout-ms': { type: 'string' },
    'idle-timeout-ms': { type: 'string' },
    'stream-calls-early': { type: 'boolean' },
    budget: { type: 'string' },
  },
  async run({ values }, usage) {
    if (values.upstream === undefined) throw new UsageError('--upstream is required', usage);
    const upstream = httpUrlFlag(values.upstream, '--upstream', usage);
    const modelMap: Record<string, string> = {};
    for (const pair of values['model-map'] ?? []) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new UsageError(`--model-map wants A=B, got "${pair}"`, usage);
      modelMap[pair.slice(0, at)] = pair.slice(at + 1);
    }
    const dialect = oneOf(values.dialect, [...DIALECTS, 'auto'] as const, '--dialect', usage);
    const grammar = oneOf(values.grammar, ['llama.cpp'] as const, '--grammar', usage);
    return runServe({
      upstream,
      port: port(values.port, '--port', usage),
      host: values.host,
      modelMap,
      grammar,
      parser: { dialect },
      apiKey: values['api-key'],
      requireKey: values['require-key'] ?? process.env.TAGCALL_SERVE_KEY,
      allowedHosts: values['allowed-host'],
      allowedOrigins: values['allowed-origin'],
      maxBodyBytes: positiveInteger(values['max-body-bytes'], '--max-body-bytes', usage),
      connectTimeoutMs: positiveInteger(
        values['connect-timeout-ms'],
        '--connect-timeout-ms',
        usage,
      ),
      idleTimeoutMs: positiveInteger(values['idle-timeout-ms'], '--idle-timeout-ms', usage),
      streamCallsEarly: values['stream-calls-early'] === true,
      budget: positiveInteger(values.budget, '--budget', usage),
    });
  },
});
