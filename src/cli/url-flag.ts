import { redactUrl } from '../messages/redact-url.js';
import { UsageError } from './command.js';

/**
 * A flag that names a model server (`--base-url`, `--upstream`): an http(s) URL without
 * credentials (fetch refuses a URL holding a user or password, and would echo it in its
 * error). A bad one is a usage error that names the flag and shows the value without its
 * password.
 */
export function httpUrlFlag(value: string, flag: string, usage: string): string {
  const shown = redactUrl(value);
  const example = 'http://127.0.0.1:8080/v1';
  if (!URL.canParse(value))
    throw new UsageError(`${flag} ${shown}: not a valid URL; expected e.g. ${example}`, usage);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(
      `${flag} ${shown}: expected an http:// or https:// URL, e.g. ${example}`,
      usage,
    );
  if (url.username !== '' || url.password !== '')
    throw new UsageError(
      `${flag} ${shown}: a URL with a user or password cannot be requested; give the key with --api-key`,
      usage,
    );
  return value;
}
