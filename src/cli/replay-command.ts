import { startReplayModel } from '../agent/index.js';
import { defineCommand, port, untilStopped } from './command.js';
import { DEMO_SESSION, readRecordedReplies, replyFiles } from './recorded-replies.js';

const USAGE = `Usage: tagcall replay [REPLY.txt…] [--port N]

A stand-in model server for trying tagcall offline: an OpenAI-compatible server on 127.0.0.1
that answers with recorded replies, streamed to "stream": true and as one chat.completion
otherwise (the Nth reply answers a request that holds N-1 assistant messages; NAME.after-error.txt
answers instead of NAME.txt when the request ends with a failed tool result). With no files, the
replies of the bundled demo session. Stops on SIGINT or SIGTERM.

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
    const replies = await readRecordedReplies(
      positionals.length > 0 ? positionals : await replyFiles(DEMO_SESSION),
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
