import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

function tagcall(args: string[], input = '') {
  const run = spawnSync(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-cli-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('finding one’s way', () => {
  it('--version, -V and version print the version', () => {
    const { version } = JSON.parse(
      spawnSync('node', ['-p', 'JSON.stringify(require("./package.json"))'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).stdout,
    ) as { version: string };
    for (const flag of ['--version', '-V', 'version'])
      expect(tagcall([flag])).toMatchObject({ code: 0, stdout: `tagcall ${version}\n` });
  });

  it('help, help COMMAND and COMMAND --help print usage; demo --help runs no demo', () => {
    expect(tagcall(['help']).stdout).toMatch(/^Usage: tagcall <command>/);
    expect(tagcall(['help', 'serve']).stdout).toMatch(/^Usage: tagcall serve/);
    const demo = tagcall(['demo', '--help']);
    expect(demo).toMatchObject({ code: 0, stderr: '' });
    expect(demo.stdout).toMatch(/^Usage: tagcall demo/);
  });

  it('a wrong flag or argument is a usage error (exit 2), for every command', () => {
    for (const args of [
      ['demo', '--bogus'],
      ['demo', 'extra'],
      ['grammar', '--nope'],
      ['serve', '--upstream'],
      ['serve', '--upstream', 'http://127.0.0.1:9/v1', '--dialect', 'klingon'],
      ['stats', '--jobs', 'many', '-'],
    ]) {
      const { code, stderr } = tagcall(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain(`Usage: tagcall ${args[0]}`);
    }
  });
});

// #45 item 5: Node's text ("Unknown option '--fromat'. To specify a positional argument …
// as in '-- \"--fromat\"") with an unbalanced quote, then the whole usage.
describe('a usage mistake is one line, the synopsis and where the options are (exit 2)', () => {
  it('an unknown option, with the flag it was probably meant to be', () => {
    const run = tagcall(['parse', 'x.txt', '--fromat', 'json']);
    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        "tagcall: unknown option --fromat (did you mean --format?)\nUsage: tagcall parse [PATH…|-] [options]\n'tagcall help parse' lists its options.\n",
    });
    expect(tagcall(['stats', '--zzz']).stderr.split('\n')[0]).toBe('tagcall: unknown option --zzz');
    expect(tagcall(['parse', '--glob']).stderr.split('\n')[0]).toBe(
      'tagcall: --glob needs a value',
    );
    expect(tagcall(['demo', '--json=yes']).stderr.split('\n')[0]).toBe(
      'tagcall: --json takes no value',
    );
  });

  it('an unknown command, with the command it was probably meant to be', () => {
    expect(tagcall(['pars'])).toMatchObject({
      code: 2,
      stderr:
        'tagcall: unknown command "pars" (did you mean parse?)\nUsage: tagcall <command> [options]\n\'tagcall --help\' lists the commands.\n',
    });
    expect(tagcall(['frobnicate']).stderr.split('\n')[0]).toBe(
      'tagcall: unknown command "frobnicate"',
    );
    expect(tagcall(['--glob', 'x']).stderr.split('\n')[0]).toBe('tagcall: unknown option --glob');
    const none = tagcall([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage: tagcall <command>/);
  });

  it('--range with a folder is a usage error', () => {
    const run = tagcall(['parse', 'fixtures/transcripts', '--range', '0:10']);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(
      'tagcall: --range reads a part of one file; fixtures/transcripts is a folder',
    );
  });
});

describe('nothing to read is said, and fails (exit 1)', () => {
  it('a --glob that matches no file', () => {
    for (const command of ['parse', 'stats'])
      expect(tagcall([command, 'fixtures/transcripts', '--glob', '*.nope'])).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'tagcall: no file in fixtures/transcripts matches --glob *.nope\n',
      });
  });

  it('an empty folder', () => {
    const dir = tempDir();
    expect(tagcall(['stats', dir])).toMatchObject({
      code: 1,
      stderr: `tagcall: no file to read in ${dir}\n`,
    });
  });
});

describe('counts read as English', () => {
  it('stats says 1 file and its size in a unit that shows it, and leaves out a zero JSON-form line', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'one.txt'), '<tool>\n<tool_name>a</tool_name>\n</tool>\n');
    const { code, stdout } = tagcall(['stats', dir]);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(0, 2)).toEqual([
      '1 file, 40 bytes',
      '1 call, 0 malformed (0.0%), 0 quoted (in user messages or tool results), 0 examples (in system prompts); neither counted as calls',
    ]);
    expect(stdout).not.toContain('deprecated JSON form');
    writeFileSync(
      join(dir, 'two.txt'),
      `<tool>{"tool_name": "b", "arguments": {}}</tool>\n${'x'.repeat(3000)}\n`,
    );
    const two = tagcall(['stats', dir]).stdout.split('\n');
    expect(two[0]).toBe('2 files, 3.1 KB');
    expect(two).toContain('1 call in the deprecated JSON form');
  });
});

// #45 item 6: `grammar --tools` took a JSON list and `run --tools` a JS module, and
// `run --tools tools.json` said "needs an import attribute of type json".
describe('--tools: a JS module for run and grammar, a JSON list for grammar', () => {
  const schema = { type: 'object', properties: { city: { type: 'string' } } };
  it('grammar reads the module run takes, as it reads the same tools in JSON', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'tools.mjs'),
      `export const tools = [{ name: 'weather', description: 'the weather', inputSchema: ${JSON.stringify(schema)}, handler: () => 'sunny' }];\n`,
    );
    writeFileSync(
      join(dir, 'tools.json'),
      JSON.stringify([{ name: 'weather', description: 'the weather', inputSchema: schema }]),
    );
    const fromModule = tagcall(['grammar', '--tools', join(dir, 'tools.mjs')]);
    expect(fromModule.code).toBe(0);
    expect(fromModule.stdout).toContain('weather');
    expect(fromModule.stdout).toBe(tagcall(['grammar', '--tools', join(dir, 'tools.json')]).stdout);
  });

  it('run refuses a JSON list in words: nothing would run its calls', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tools.json'), '[]');
    const run = tagcall([
      'run',
      'task',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--model',
      'm',
      '--tools',
      join(dir, 'tools.json'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `tagcall: --tools ${join(dir, 'tools.json')}: a JSON tool list has no code to run the tools; tagcall run takes a JS module exporting defineTool(...) definitions with handlers (a JSON list is for tagcall grammar --tools and for serve's requests)\n`,
    );
  });
});

describe('a closed reader ends the command quietly', () => {
  for (const format of ['json', 'pretty', 'ndjson']) {
    it(`--format ${format} | head`, async () => {
      const dir = tempDir();
      const file = join(dir, 'big.txt');
      writeFileSync(file, '<tool>\n<tool_name>x</tool_name>\n</tool>\n'.repeat(100_000));
      const child = spawn(
        process.execPath,
        [...CLI, 'parse', file, '--format', format, '--jobs', '1'],
        {
          cwd: ROOT,
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      child.stdout.destroy();
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(0);
    });
  }
});

describe('transcripts are read as transcripts', () => {
  it('a JSONL transcript is read message by message by default; --format json warns', () => {
    const file = 'fixtures/transcripts/openai-chat.jsonl';
    const byDefault = tagcall(['parse', file]);
    expect(byDefault.code).toBe(0);
    const calls = byDefault.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((r) => r.type === 'call');
    expect(calls.length).toBeGreaterThan(0);
    const forced = tagcall(['parse', file, '--format', 'json']);
    expect(forced.stderr).toContain(
      'looks like a transcript (JSON); --format json reads it as one reply',
    );
    expect(tagcall(['parse', file, '--format', 'json', '--input', 'text']).stderr).toBe('');
  });
});

describe('configuration files: one line naming the file and what was expected', () => {
  const cases: Array<[string, (dir: string) => string[], RegExp]> = [
    [
      'a tools file that is one object',
      (dir) => {
        writeFileSync(join(dir, 't.json'), '{"name": "x"}');
        return ['grammar', '--tools', join(dir, 't.json')];
      },
      /^tagcall: --tools .*t\.json: expected a tool list: /,
    ],
    [
      'bad JSON in --mcp',
      (dir) => {
        writeFileSync(join(dir, 'm.json'), '{oops');
        return ['grammar', '--mcp', join(dir, 'm.json')];
      },
      /^tagcall: --mcp .*m\.json is not valid JSON: /,
    ],
    [
      'a folder as --mcp',
      (dir) => ['grammar', '--mcp', dir],
      /^tagcall: --mcp .* is a folder; give a JSON file$/,
    ],
    [
      'an MCP server without a command',
      (dir) => {
        writeFileSync(join(dir, 'm.json'), '{"mcpServers": {"x": {"cmd": "a"}}}');
        return ['grammar', '--mcp', join(dir, 'm.json')];
      },
      /^tagcall: --mcp .*: server "x" needs "command"/,
    ],
    [
      'an MCP command that does not exist',
      (dir) => {
        writeFileSync(
          join(dir, 'm.json'),
          '{"mcpServers": {"x": {"command": "no-such-tagcall-server"}}}',
        );
        return ['grammar', '--mcp', join(dir, 'm.json')];
      },
      /^tagcall: MCP server "x": spawn no-such-tagcall-server ENOENT$/,
    ],
    [
      'a tools module without tools',
      (dir) => {
        writeFileSync(join(dir, 'tools.mjs'), 'export const nothing = 1;\n');
        return [
          'run',
          't',
          '--base-url',
          'http://127.0.0.1:9/v1',
          '--model',
          'm',
          '--tools',
          join(dir, 'tools.mjs'),
        ];
      },
      /^tagcall: --tools .*tools\.mjs must export `tools` or a default export/,
    ],
    [
      'a workspace that does not exist',
      (dir) => [
        'run',
        't',
        '--base-url',
        'http://127.0.0.1:9/v1',
        '--model',
        'm',
        '--workspace',
        join(dir, 'nope'),
      ],
      /^tagcall: --workspace .*nope does not exist$/,
    ],
  ];
  for (const [name, args, message] of cases) {
    it(name, () => {
      const { code, stderr } = tagcall(args(tempDir()));
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr.trim()).toMatch(message);
    });
  }

  it('tagcall grammar reads the OpenAI, Anthropic and MCP tool-list shapes alike', () => {
    const dir = tempDir();
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const shapes = {
      openai: [{ type: 'function', function: { name: 'weather', parameters: schema } }],
      anthropic: [{ name: 'weather', input_schema: schema }],
      mcp: { tools: [{ name: 'weather', inputSchema: schema }] },
    };
    const grammars = Object.entries(shapes).map(([name, value]) => {
      writeFileSync(join(dir, `${name}.json`), JSON.stringify(value));
      const { code, stdout } = tagcall(['grammar', '--tools', join(dir, `${name}.json`)]);
      expect(code).toBe(0);
      return stdout;
    });
    expect(grammars[0]).toContain('weather');
    expect(new Set(grammars).size).toBe(1);
  });
});

// #28 item 10: clean, machine-readable output and exit codes.
describe('exit codes and messages a script can rely on', () => {
  it('help for a command that does not exist and a port out of range: 2; a missing file in words', () => {
    expect(tagcall(['help', 'nonexistent'])).toMatchObject({ code: 2 });
    expect(tagcall(['help', 'nonexistent']).stderr).toContain('unknown command "nonexistent"');
    for (const command of ['serve', 'replay']) {
      const args = command === 'serve' ? ['--upstream', 'http://127.0.0.1:9/v1'] : [];
      const bad = tagcall([command, ...args, '--port', '99999']);
      expect(bad.code, command).toBe(2);
      expect(bad.stderr).toContain('--port must be a port number from 0 (any free port) to 65535');
    }
    const missing = tagcall(['parse', join(tempDir(), 'nope.txt')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope\.txt: no such file or directory\n$/);
    expect(missing.stderr).not.toContain('ENOENT');
  });

  it('a port already in use is said as such (exit 1)', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    try {
      const run = spawnSync(process.execPath, [...CLI, 'replay', '--port', String(port)], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`127.0.0.1:${port} is already in use; choose another --port`);
    } finally {
      busy.close();
    }
  });

  it('demo --json writes only NDJSON on stdout', () => {
    const demo = tagcall(['demo', '--json']);
    expect(demo.code).toBe(0);
    const lines = demo.stdout.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({
      type: 'run-end',
      status: 'completed',
    });
  });

  for (const command of ['serve', 'replay'])
    it(`Ctrl-C ends ${command} with 130, SIGTERM with 0`, async () => {
      for (const [signal, code] of [
        ['SIGINT', 130],
        ['SIGTERM', 0],
      ] as const) {
        const args =
          command === 'serve'
            ? ['serve', '--upstream', 'http://127.0.0.1:9/v1', '--port', '0']
            : ['replay', '--port', '0'];
        const child = spawn(process.execPath, [...CLI, ...args], {
          cwd: ROOT,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        await new Promise<void>((resolve) =>
          child.stderr.on('data', (d: Buffer) => {
            stderr += d;
            if (stderr.includes('listening on')) resolve();
          }),
        );
        child.kill(signal);
        const exit = await new Promise<number | null>((resolve) =>
          child.once('exit', (code) => resolve(code)),
        );
        expect(exit, `${command} ${signal}`).toBe(code);
      }
    });
});

// #28 item 9: every command module (and the MCP SDK, ajv, the server…) was imported before
// `--version` answered (~1 s through tsx).
describe('start-up', () => {
  it('--version and help load no command; a command loads only its own module', () => {
    const loaded = (args: string[]) =>
      spawnSync(
        process.execPath,
        ['--import', './test/support/record-imports.mjs', ...CLI, ...args],
        { cwd: ROOT, encoding: 'utf8' },
      )
        .stderr.split('\n')
        .filter((line) => line.startsWith('import: ') && line.includes('/src/'))
        .map((line) => line.slice(line.indexOf('/src/') + 1));
    for (const args of [['--version'], ['help']]) {
      const files = loaded(args);
      expect(files, args.join(' ')).toContain('src/cli/main.ts');
      expect(
        files.filter((f) => f.endsWith('-command.ts')),
        args.join(' '),
      ).toEqual([]);
    }
    const help = loaded(['help', 'grammar']);
    expect(help.filter((f) => f.endsWith('-command.ts'))).toEqual(['src/cli/grammar-command.ts']);
    expect(help.some((f) => f.startsWith('src/server/'))).toBe(false);
  });
});
