import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReplayModel } from '../agent/index.js';
import { CliError, defineCommand, port, untilStopped } from './command.js';

const SESSION = fileURLToPath(new URL('../../fixtures/demo/session/', import.meta.url));

const USAGE = `Usage: tagcall replay [REPLY.txt…] [--port N]

A stand-in model server for trying tagcall offline: an OpenAI-compatible server on 127.0.0.1
that answers with recorded replies, streamed to "stream": true and as one chat.completion
otherwise (the Nth reply answers a request that holds N-1 assistant messages). With no files, the replies of the bundled demo session. Stops on SIGINT or SIGTERM.

Options:
  --port N              default 8080 (0: any free port)
  -h, --help            this text
`;

export const replayCommand = defineCommand({
  name: 'replay',
  usage: USAGE,
  positionals: true,
  options: { port: { type: 'string', default: '8080' } },
  async run({ values, positionals }, usage) {
    const files =
      positionals.length > 0
        ? positionals
        : (await readdir(SESSION))
            .filter((f) => f.endsWith('.txt'))
            .sort()
            .map((f) => join(SESSION, f));
    const replies = await Promise.all(
      files.map((f) =>
        readFile(f, 'utf8').catch((error: Error) => {
          throw new CliError(`${f} cannot be read: ${error.message}`);
        }),
      ),
    );
    const model = await startReplayModel({
      replies,
      port: port(values.port, '--port', usage),
    });
    // Listening for signals before saying so: whoever reads the line may stop us at once.
    const stopped = untilStopped();
    process.stderr.write(`tagcall replay: listening on ${model.url} (${replies.length} replies)\n`);
    const code = await stopped;
    await model.close();
    return code;
  },
});
