// Preloaded with --import: writes every module URL the program resolves to stderr, one a line
// prefixed "import:", so a test can tell what a command loaded.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write('import: ' + resolved.url + '\\n');
  return resolved;
}`)}`,
);
